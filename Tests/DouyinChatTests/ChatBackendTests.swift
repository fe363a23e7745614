import DouyinAPI
import DouyinChat
import DouyinModels
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// The realtime client against the local backend: its push endpoint and, for the gap fill,
/// `groupchat/list` through DouyinAPI's client.
@Suite("Chat connection against the local backend")
struct ChatBackendTests {
    @Test func aMessagePostedDuringAnOutageIsFilledInThroughTheAPIClient() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let clock = TestClock()
        let api = APIClient(baseURL: backend.baseURL, configuration: .patient, clock: TestClock())
        let connection = ChatConnection(url: backend.groupChatURL, udid: "listener", history: api,
                                        transport: POSIXWebSocketTransport(), clock: clock, random: SeededRandom(seed: 77))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        _ = await events(of: connection, until: { $0 == .state(.open) }, iterator: &iterator)

        // A message posted while connected arrives as a push.
        let live = try await api.value(.groupChatText(udid: "poster", text: "while connected"))
        var seen = await events(of: connection, until: { if case .message(let m) = $0 { return m.id == live.id } else { return false } }, iterator: &iterator)

        // The server drops every socket; a message is posted while the client waits to retry.
        try backend.disconnectWebSockets()
        seen += await events(of: connection, until: isWaiting, iterator: &iterator)
        guard case .state(.waiting(_, let delay?))? = seen.last else { Issue.record("\(seen)"); return }
        let missed = try await api.value(.groupChatText(udid: "poster", text: "during the outage"))
        #expect(try backend.push("{}") == 0, "no client connected while the message was posted")

        // After the backoff (test clock) it reconnects and the gap fill brings the missed one.
        if delay > .zero {
            await clock.waitForSleepers(1)
            clock.advance(by: delay)
        }
        seen += await events(of: connection, until: { if case .message(let m) = $0 { return m.id == missed.id } else { return false } }, iterator: &iterator)
        connection.stop()
        while let event = await iterator.next() { seen.append(event) }

        let ids = seen.compactMap { if case .message(let m) = $0 { return m.id } else { return nil } }
        #expect(ids.filter { $0 == live.id }.count == 1, "the live message once, not again from the fill: \(ids)")
        #expect(ids.filter { $0 == missed.id }.count == 1)
        #expect(try backend.requests(to: "groupchat/list").count >= 1)
    }

    /// A client that posts the moment its connection opens gets the push of its own post: the
    /// backend lists a connection before it answers the upgrade. Here every new connection
    /// pauses 2 s after its 101, long enough for the post and its broadcast, so a connection
    /// listed only after its 101 misses the push, as the demo's once did (it then waited for
    /// ever). The time limit is the bound on that wait.
    @Test(.hangGuard) func aPostTheMomentTheConnectionOpensIsPushedBack() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try backend.pauseAfterWebSocketUpgrade(seconds: 2)
        let api = APIClient(baseURL: backend.baseURL, configuration: .patient)
        let connection = ChatConnection(url: backend.groupChatURL, udid: "poster", history: api, transport: POSIXWebSocketTransport())
        defer { connection.stop() }
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        _ = await events(of: connection, until: { $0 == .state(.open) }, iterator: &iterator)
        let posted = try await api.value(.groupChatText(udid: "poster", text: "at once"))
        let seen = await events(of: connection, until: { if case .message(let m) = $0 { return m.id == posted.id } else { return false } },
                                iterator: &iterator)
        #expect(seen.contains { if case .message(let m) = $0 { return m.id == posted.id } else { return false } }, "\(seen)")
    }

    @Test func anOfflineFallbackAnswerIsNotTakenForHistory() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let base = closed.baseURL
        var configuration = APIClient.Configuration()
        configuration.fallback = FallbackStore(directory: Fixtures.url("api"))
        configuration.retry.maximumRetries = 0
        let api = APIClient(baseURL: base, configuration: configuration, clock: TestClock())
        // The same request answers from the bundled file…
        #expect(try await api.send(.groupChatList()).source == .fallback)
        // …but the gap fill refuses it rather than merge old messages as new ones.
        // The refusal keeps the network failure that made the client fall back.
        await #expect {
            _ = try await api.latestMessages()
        } throws: { error in
            guard case ChatError.gapFillFailed(.offlineFallback(let networkError?)) = error,
                  case .transport(.groupChatList, let urlError) = networkError else { return false }
            return urlError.code == .cannotConnectToHost && "\(error)".contains("offline fallback is not history")
        }
    }

    /// Pins: `gapFillFailed` kept only the API error's text, so a caller could not tell a
    /// server code from a dropped connection without parsing a sentence.
    @Test func gapFillFailedKeepsTheAPIErrorItself() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try backend.respond(status: 200, body: #"{"code": 2001, "message": "no such group"}"#)
        let api = APIClient(baseURL: backend.baseURL, configuration: .patient, clock: TestClock())
        await #expect {
            _ = try await api.latestMessages()
        } throws: { error in
            guard case ChatError.gapFillFailed(.api(let apiError)) = error else { return false }
            return apiError == .server(endpoint: .groupChatList, code: 2001, message: "no such group")
                && "\(error)".contains("2001") && "\(error)".contains("groupchat/list")
        }
    }
}
