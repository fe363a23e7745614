import DouyinLogging
import DouyinModels
import DouyinSupport
import Foundation

/// The group chat's realtime connection: keeps a WebSocket to the push endpoint open, decodes
/// each pushed `GroupChat`, and reconnects by its policy when the connection drops.
///
/// Rules (decided by a pure state machine, performed here):
/// - reconnect with exponential backoff and full jitter (``ReconnectPolicy``), the count reset
///   once a connection stayed open ``ReconnectPolicy/stableAfter``;
/// - while the app reports no network (``setReachable(_:)``) it waits without attempts, and
///   connects at once when the network returns;
/// - ``stop()`` closes for good: nothing reconnects afterwards;
/// - a handshake refused with a 4xx status, or a close with 1008, gives up with the reason;
/// - heartbeat: a ping every ``Configuration/heartbeat`` (25 s); no pong within
///   ``Configuration/pongTimeout`` (10 s) means a dead connection, closed and reconnected;
/// - after every reconnect the newest page from ``ChatHistorySource`` fills the gap; every
///   message id is delivered once, whether pushed, pushed again or filled in.
public final class ChatConnection: Sendable {
    /// Where the connection stands.
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Made, not started.
        case idle
        /// Opening; `attempt` counts retries since the last stable connection.
        case connecting(attempt: Int)
        /// Open: pushes arrive.
        case open
        /// Waiting to retry for `delay` (the backoff drawn), or without a delay (`nil`) while offline.
        case waiting(attempt: Int, delay: Duration?)
        /// Stopped by the app; final.
        case closed
        /// Gave up: retrying cannot help; final. The error is the one that decided it: a
        /// ``ChatError/handshakeRejected(status:reason:)`` with a 4xx status, or a
        /// ``ChatError/closed(code:reason:)`` with 1008 (policy).
        case gaveUp(ChatError)

        /// `idle`, `connecting`, `open`, `waiting`, `closed` or `gave-up`.
        public var description: String {
            switch self {
            case .idle: "idle"
            case .connecting: "connecting"
            case .open: "open"
            case .waiting: "waiting"
            case .closed: "closed"
            case .gaveUp: "gave-up"
            }
        }
    }

    /// What the listener hears.
    public enum Event: Sendable, Hashable {
        /// The state changed.
        case state(State)
        /// A message, pushed or filled in after a reconnect; each id once.
        case message(GroupChat)
        /// Something failed; the state that follows says whether it retries.
        case error(ChatError)
    }

    /// Timing and limits.
    public struct Configuration: Sendable, Hashable {
        /// Backoff between attempts. See ``ReconnectPolicy`` for its defaults.
        public var reconnect: ReconnectPolicy
        /// Time between pings on an open connection. 25 s by default.
        public var heartbeat: Duration
        /// A ping unanswered this long means the connection is dead. 10 s by default.
        public var pongTimeout: Duration
        /// How many message ids are remembered for de-duplication: the window of the most recent
        /// ids delivered (a ring, so memory stays bounded however many messages arrive; about
        /// 1 MB for the default). A message whose id left the window counts as new. 10,000 by
        /// default; values below 1 count as 1.
        public var rememberedIDs: Int
        /// Where the connection's life is logged: connecting, connected, a failed connect or
        /// handshake, a close (code, reason) or loss, each reconnect with its backoff, giving up,
        /// stopping (subsystem `DouyinChat.ChatConnection`; never one line per message). Called
        /// outside the connection's lock. `nil` by default: nothing is logged.
        public var log: LogHandler?

        /// A configuration; every argument has the documented default.
        public init(reconnect: ReconnectPolicy = ReconnectPolicy(), heartbeat: Duration = .seconds(25), pongTimeout: Duration = .seconds(10),
                    rememberedIDs: Int = 10_000, log: LogHandler? = nil) {
            self.reconnect = reconnect
            self.heartbeat = heartbeat
            self.pongTimeout = pongTimeout
            self.rememberedIDs = rememberedIDs
            self.log = log
        }
    }

    private struct Core: Sendable {
        var machine: ChatConnectionMachine
        var connections: [Int: any WebSocketConnection] = [:]
        var timers: [Int: Task<Void, Never>] = [:]
        var seen: RecentIDs
        var finished = false
    }

    /// The events, in order; finishes once the connection is closed or gave up.
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let core: LockedBox<Core>
    private let url: URL
    private let headers: [String: String]
    private let transport: any WebSocketTransport
    private let history: (any ChatHistorySource)?
    private let configuration: Configuration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let elapsed: @Sendable () -> Duration

    /// A connection to `url` (`ws://HOST:PORT/douyin/groupchat`) sending `udid` as a header.
    ///
    /// - Parameters:
    ///   - url: the push endpoint, `ws://` (any transport) or `wss://` (URLSession's only).
    ///   - udid: sent as the `udid` header; `nil` sends none.
    ///   - configuration: reconnect, ping and gap-fill settings; the defaults by default.
    ///   - history: fills the gap after a reconnect; `nil` skips the fill.
    ///   - transport: ``WebSocketTransports/platformDefault`` unless given.
    ///   - clock: the clock timers sleep on (a test clock in tests).
    ///   - random: the backoff's jitter source (seeded in tests).
    public init<C: Clock>(url: URL, udid: String?, configuration: Configuration = Configuration(), history: (any ChatHistorySource)? = nil,
                          transport: any WebSocketTransport = WebSocketTransports.platformDefault, clock: C,
                          random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) where C.Duration == Duration {
        self.url = url
        headers = udid.map { ["udid": $0] } ?? [:]
        self.transport = transport
        self.history = history
        self.configuration = configuration
        let start = clock.now
        sleep = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
        elapsed = { start.duration(to: clock.now) }
        core = LockedBox(Core(machine: ChatConnectionMachine(policy: configuration.reconnect, heartbeat: configuration.heartbeat,
                                                              pongTimeout: configuration.pongTimeout, random: random),
                              seen: RecentIDs(capacity: configuration.rememberedIDs)))
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// A connection on the continuous clock (see the full initializer).
    public convenience init(url: URL, udid: String?, configuration: Configuration = Configuration(), history: (any ChatHistorySource)? = nil,
                            transport: any WebSocketTransport = WebSocketTransports.platformDefault) {
        self.init(url: url, udid: udid, configuration: configuration, history: history, transport: transport, clock: ContinuousClock())
    }

    /// The current state.
    public var state: State { core.withLock { $0.machine.state } }

    /// Starts connecting (once; later calls do nothing).
    public func start() { feed { $0.start() } }

    /// Closes for good: no reconnect follows; idempotent, safe from any thread.
    public func stop() { feed { $0.stop() } }

    /// The app's reachability input: `false` while the device has no network.
    public func setReachable(_ reachable: Bool) { feed { $0.reachabilityChanged(reachable) } }

    /// Sends a text frame on the open connection (the API's POST is how messages are sent;
    /// this is for servers that take them over the socket). Throws when not open.
    public func send(text: String) async throws {
        let connection = core.withLock { core in core.connections[core.machine.generation] }
        guard let connection, state == .open else { throw ChatError.connectionLost(errno: 0) }
        try await connection.send(text: text)
    }

    // MARK: - Driving the machine

    private func feed(_ input: (inout ChatConnectionMachine) -> [ChatConnectionMachine.Action]) {
        let actions = core.withLock { input(&$0.machine) }
        perform(actions)
    }

    private func perform(_ actions: [ChatConnectionMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let generation):
                Task { await self.run(generation: generation) }
            case .close(let generation, let code):
                let connection = core.withLock { $0.connections.removeValue(forKey: generation) }
                if let connection { Task { await connection.close(code: code, reason: "") } }
            case .report(let state):
                if let log = configuration.log, let event = ChatConnectionLog.event(for: state, url: url) { log(event) }
                continuation.yield(.state(state))
                if state == .closed || { if case .gaveUp = state { return true } else { return false } }() {
                    let (timers, connections) = core.withLock { core in
                        core.finished = true
                        defer { core.timers = [:]; core.connections = [:] }
                        return (Array(core.timers.values), Array(core.connections.values))
                    }
                    timers.forEach { $0.cancel() }
                    for connection in connections { Task { await connection.close(code: 1000, reason: "") } }
                    continuation.finish()
                }
            case .reportError(let error):
                configuration.log?(ChatConnectionLog.event(error: error, url: url))
                continuation.yield(.error(error))
            case .startTimer(let timer, let delay):
                let task = Task { [sleep] in
                    do { try await sleep(delay) } catch { return }
                    self.feed { $0.timerFired(timer, at: self.elapsed()) }
                }
                let previous = core.withLock { core -> Task<Void, Never>? in
                    guard !core.finished else { return task }
                    defer { core.timers[timer.kind] = task }
                    return core.timers[timer.kind]
                }
                previous?.cancel()
            case .cancelTimers:
                let timers = core.withLock { core in
                    defer { core.timers = [:] }
                    return Array(core.timers.values)
                }
                timers.forEach { $0.cancel() }
            case .ping(let generation):
                guard let connection = core.withLock({ $0.connections[generation] }) else { continue }
                Task {
                    do {
                        try await connection.ping()
                        self.feed { $0.pongReceived(generation: generation) }
                    } catch {
                        // The read loop reports the connection's end.
                    }
                }
            case .fillGap:
                guard let history else { continue }
                Task {
                    do {
                        let messages = try await history.latestMessages()
                        for message in messages.sorted(by: { ($0.createTime ?? .distantPast, $0.id) < ($1.createTime ?? .distantPast, $1.id) }) { self.deliver(message) }
                    } catch let error as ChatError {
                        self.continuation.yield(.error(error))
                    } catch {
                        self.continuation.yield(.error(.gapFillFailed(.source(error))))
                    }
                }
            }
        }
    }

    /// Opens connection `generation`, then reads it until it ends.
    private func run(generation: Int) async {
        let connection: any WebSocketConnection
        do {
            connection = try await transport.connect(to: url, headers: headers)
        } catch {
            feed { $0.connectFailed(generation: generation, error: Self.chatError(error)) }
            return
        }
        let accepted = core.withLock { core -> Bool in
            guard !core.finished else { return false }
            core.connections[generation] = connection
            return true
        }
        guard accepted else {
            await connection.close(code: 1000, reason: "")
            return
        }
        feed { $0.connected(generation: generation, at: elapsed()) }
        var ending: ChatError = .connectionLost(errno: 0)
        do {
            for try await message in connection.messages {
                guard case .text(let text) = message else { continue }
                do {
                    deliver(try JSONDecoder().decode(GroupChat.self, from: Data(text.utf8)))
                } catch let error as DecodingError {
                    continuation.yield(.error(.badMessage(path: error.codingPathDescription)))
                } catch {
                    continuation.yield(.error(.badMessage(path: "\(error)")))
                }
            }
        } catch {
            ending = Self.chatError(error)
        }
        core.withLock { _ = $0.connections.removeValue(forKey: generation) }
        feed { $0.disconnected(generation: generation, error: ending, at: elapsed()) }
    }

    /// Yields `message` unless its id was delivered before.
    private func deliver(_ message: GroupChat) {
        let isNew = core.withLock { $0.seen.insert(message.id) }
        if isNew { continuation.yield(.message(message)) }
    }

    private static func chatError(_ error: any Error) -> ChatError {
        ChatError.from(error)
    }
}

extension DecodingError {
    /// The JSON path where decoding stopped, such as `visitor.udid`.
    var codingPathDescription: String {
        let path: [any CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default:
            path = []
        }
        return path.isEmpty ? "(root)" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
