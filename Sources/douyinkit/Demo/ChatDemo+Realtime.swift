import DouyinKit
import DouyinBackendLauncher
import Foundation

extension ChatDemo {
    /// The chat end to end against the local backend: two listeners; a text posted through
    /// DouyinAPI shown once in both timelines (the poster's pending row merged with the POST
    /// answer and the push echo); every socket dropped by the server, the reconnect with its
    /// backoff, and a message posted during the outage filled in from `groupchat/list`.
    static func runRealtime(_ fixtures: URL) async throws {
        print("\n== Group chat in real time (local backend: two listeners, a post, the sockets dropped)")
        guard let backend = await Demo.startBackend(fixtures) else { return }
        defer { backend.stop() }
        let api = APIClient(baseURL: backend.baseURL)
        let poster = try await api.visitor(deviceID: "douyinkit-demo-poster")
        var writer = Listener(name: "poster", udid: poster.udid, backend: backend, api: api)
        var reader = Listener(name: "reader", udid: "demo-reader", backend: backend, api: api)
        try await writer.read(until: { $0 == .state(.open) })
        try await reader.read(until: { $0 == .state(.open) })

        let text = "hello from the demo [微笑]"
        let localID = "local-1"
        _ = writer.timeline.addPending(localID: localID, text: text, at: Date(), visitor: poster)
        print("  poster: \"\(text)\" shown as \(writer.delivery(of: text))")
        let answer = try await api.value(.groupChatText(udid: poster.udid, text: text))
        _ = writer.timeline.confirm(localID: localID, with: answer)
        print("  poster: POST answered id \(answer.id), row now \(writer.delivery(of: text))")
        try await writer.read(until: { $0.messageID == answer.id })
        try await reader.read(until: { $0.messageID == answer.id })
        print("  after the push: poster shows it \(writer.count(text))×, reader \(reader.count(text))×")

        try backend.disconnectWebSockets()
        print("  server dropped every WebSocket")
        try await writer.read(until: \.isWaiting)
        try await reader.read(until: \.isWaiting)
        let missed = try await api.value(.groupChatText(udid: poster.udid, text: "posted during the outage"))
        print("  posted \(missed.id) while the poster is \(writer.connection.state) and the reader \(reader.connection.state)")
        try await writer.read(until: { $0.messageID == missed.id })
        try await reader.read(until: { $0.messageID == missed.id })
        let fills = try backend.requests(to: "groupchat/list").count
        print("  reconnected: poster shows the missed message \(writer.count(missed.msgContent))×, reader \(reader.count(missed.msgContent))× (groupchat/list asked \(fills)×)")
        writer.connection.stop()
        reader.connection.stop()
    }

    /// One chat screen: a connection and the timeline its events build.
    struct Listener {
        let name: String
        let connection: ChatConnection
        var iterator: AsyncStream<ChatConnection.Event>.Iterator
        var timeline: ChatTimeline

        init(name: String, udid: String, backend: LocalBackend, api: APIClient) {
            self.name = name
            connection = ChatConnection(url: backend.groupChatURL, udid: udid, history: api)
            iterator = connection.events.makeAsyncIterator()
            timeline = ChatTimeline(configuration: .init(ownUDID: udid))
            connection.start()
        }

        /// Applies events (printing retries and errors) until `done` holds for one.
        ///
        /// Gives up after `limit` (60 s by default): the connection is stopped, which ends its
        /// events, and this throws ``WaitedTooLong``; it throws the same, saying so, when the
        /// connection gave up first. A push the server lost would otherwise keep the demo
        /// waiting for ever.
        mutating func read(until done: (ChatConnection.Event) -> Bool, limit: Duration = .seconds(60)) async throws {
            let connection = self.connection
            let watchdog = Task { () -> Bool in
                do { try await Task.sleep(for: limit) } catch { return false }
                connection.stop()
                return true
            }
            defer { watchdog.cancel() }
            while let event = await iterator.next() {
                switch event {
                case .state(.waiting(let attempt, let delay?)):
                    let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
                    print("  \(name): backoff \(milliseconds) ms before retry \(attempt) (drawn with full jitter)")
                case .state(.connecting(let attempt)) where attempt > 0:
                    print("  \(name): reconnecting")
                case .state:
                    break
                case .message(let chat):
                    _ = timeline.receive(chat)
                case .error(let error):
                    print("  \(name): \(error)")
                }
                if done(event) { return }
            }
            watchdog.cancel()
            throw WaitedTooLong(name: name, limit: limit, timedOut: await watchdog.value)
        }

        /// How many rows show `text`.
        func count(_ text: String) -> Int { timeline.messages.filter { $0.chat.msgContent == text }.count }

        /// The delivery state of the row showing `text`.
        func delivery(of text: String) -> String {
            timeline.messages.first { $0.chat.msgContent == text }.map { "\($0.delivery)" } ?? "absent"
        }
    }

    /// A listener's awaited event did not come within its limit.
    struct WaitedTooLong: Error, CustomStringConvertible {
        /// The listener that waited.
        let name: String
        /// How long it could wait.
        let limit: Duration
        /// Whether the limit ended the wait (`false`: the connection ended first, having given up).
        let timedOut: Bool
        var description: String {
            timedOut
                ? "the \(name) saw no awaited chat event within \(limit.components.seconds) s (its connection was stopped)"
                : "the \(name)'s connection gave up before the awaited chat event came"
        }
    }
}

extension ChatConnection.Event {
    /// The id of a message event; `nil` for the others.
    var messageID: String? { if case .message(let chat) = self { chat.id } else { nil } }
    /// Whether this is the state of waiting to retry.
    var isWaiting: Bool { if case .state(.waiting) = self { true } else { false } }
}
