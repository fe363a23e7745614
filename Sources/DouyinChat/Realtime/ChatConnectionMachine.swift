/// The decisions of ``ChatConnection`` as a pure state machine: inputs in, actions out, no I/O
/// and no clock of its own, so every rule is tested in microseconds.
///
/// Inputs carry the connection generation they belong to; anything from an older generation
/// (a socket already given up, a timer already superseded) is ignored.
package struct ChatConnectionMachine: Sendable {
    /// What the driver must do.
    package enum Action: Sendable, Equatable {
        /// Open connection `generation`.
        case connect(generation: Int)
        /// Close connection `generation` (if it is open) with this code.
        case close(generation: Int, code: WebSocketCloseCode)
        /// Tell the listener the state changed.
        case report(ChatConnection.State)
        /// Tell the listener about an error (the connection goes on or gives up per the state).
        case reportError(ChatError)
        /// Start the timer; a timer of the same kind still running is cancelled.
        case startTimer(Timer, after: Duration)
        /// Cancel every timer.
        case cancelTimers
        /// Send a ping on connection `generation`.
        case ping(generation: Int)
        /// Fetch the newest page and merge it (after a reconnect).
        case fillGap
    }

    /// The machine's timers; one of each kind runs at a time.
    package enum Timer: Sendable, Hashable {
        case retry(token: Int)
        case heartbeat(generation: Int)
        case pongDeadline(generation: Int, ping: Int)

        /// Timers of the same kind replace each other.
        package var kind: Int {
            switch self {
            case .retry: 0
            case .heartbeat: 1
            case .pongDeadline: 2
            }
        }
    }

    enum Phase: Equatable {
        case idle
        case connecting
        case open(since: Duration)
        case waiting(token: Int)
        case offlineWaiting
        case closed
        case gaveUp(ChatError)
    }

    package let policy: ReconnectPolicy
    package let heartbeat: Duration
    package let pongTimeout: Duration
    private(set) var phase: Phase = .idle
    /// The generation of the current (or last) connection.
    package private(set) var generation = 0
    /// Retries since the last stable connection.
    package private(set) var attempt = 0
    private var reachable = true
    private var hasBeenOpen = false
    private var pingCount = 0
    private var awaitingPong: Int?
    private var token = 0
    /// The wait of the retry scheduled last, for the listener.
    private var lastDelay: Duration?
    /// The jitter source (injected: seeded in tests).
    private var random: any RandomNumberGenerator & Sendable

    package init(policy: ReconnectPolicy, heartbeat: Duration, pongTimeout: Duration, random: any RandomNumberGenerator & Sendable) {
        self.policy = policy
        self.heartbeat = heartbeat
        self.pongTimeout = pongTimeout
        self.random = random
    }

    /// The state as the listener sees it.
    package var state: ChatConnection.State {
        switch phase {
        case .idle: .idle
        case .connecting: .connecting(attempt: attempt)
        case .open: .open
        case .waiting: .waiting(attempt: attempt, delay: lastDelay)
        case .offlineWaiting: .waiting(attempt: attempt, delay: nil)
        case .closed: .closed
        case .gaveUp(let error): .gaveUp(error)
        }
    }

    // MARK: - Inputs

    /// The app starts the connection (only from idle).
    package mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        if !reachable {
            phase = .offlineWaiting
            return [.report(state)]
        }
        return beginConnecting()
    }

    /// The app stops it: closed for good, never reconnects.
    package mutating func stop() -> [Action] {
        switch phase {
        case .closed, .gaveUp: return []
        default:
            let wasOpenOrConnecting = phase == .connecting || { if case .open = phase { return true } else { return false } }()
            phase = .closed
            var actions: [Action] = [.cancelTimers]
            if wasOpenOrConnecting { actions.append(.close(generation: generation, code: 1000)) }
            actions.append(.report(.closed))
            return actions
        }
    }

    /// The handshake of `generation` succeeded at `now`.
    package mutating func connected(generation: Int, at now: Duration) -> [Action] {
        guard generation == self.generation, phase == .connecting else { return [.close(generation: generation, code: 1000)] }
        phase = .open(since: now)
        awaitingPong = nil
        var actions: [Action] = [.report(.open), .startTimer(.heartbeat(generation: generation), after: heartbeat)]
        if hasBeenOpen { actions.append(.fillGap) }
        hasBeenOpen = true
        return actions
    }

    /// Connection `generation` failed to open.
    package mutating func connectFailed(generation: Int, error: ChatError) -> [Action] {
        guard generation == self.generation, phase == .connecting else { return [] }
        if Self.isFatal(error) { return giveUp(error) }
        return [.reportError(error)] + scheduleRetry()
    }

    /// Open connection `generation` ended at `now` (`error` says how).
    package mutating func disconnected(generation: Int, error: ChatError, at now: Duration) -> [Action] {
        guard generation == self.generation, case .open(let since) = phase else { return [] }
        if Self.isFatal(error) { return [.cancelTimers] + giveUp(error) }
        if now - since >= policy.stableAfter { attempt = 0 }
        return [.cancelTimers, .reportError(error)] + scheduleRetry()
    }

    /// The network came or went (the app's reachability input).
    package mutating func reachabilityChanged(_ reachable: Bool) -> [Action] {
        self.reachable = reachable
        switch phase {
        case .waiting where !reachable:
            // Waiting offline makes no attempts; the retry timer is void.
            phase = .offlineWaiting
            token += 1
            return []
        case .waiting where reachable, .offlineWaiting where reachable:
            return [.cancelTimers] + beginConnecting()
        default:
            return []
        }
    }

    /// A timer fired at `now`.
    package mutating func timerFired(_ timer: Timer, at now: Duration) -> [Action] {
        switch timer {
        case .retry(let fired):
            guard case .waiting(let current) = phase, fired == current else { return [] }
            return beginConnecting()
        case .heartbeat(let fired):
            guard fired == generation, case .open = phase else { return [] }
            pingCount += 1
            awaitingPong = pingCount
            return [.ping(generation: generation), .startTimer(.pongDeadline(generation: generation, ping: pingCount), after: pongTimeout)]
        case .pongDeadline(let fired, let ping):
            guard fired == generation, case .open = phase, awaitingPong == ping else { return [] }
            // No pong in time: the connection is dead (a half-open socket would hang for minutes).
            var actions: [Action] = [.close(generation: generation, code: 1001)]
            actions += disconnected(generation: generation, error: .pongTimeout, at: now)
            return actions
        }
    }

    /// The pong of connection `generation` arrived.
    package mutating func pongReceived(generation: Int) -> [Action] {
        guard generation == self.generation, case .open = phase, awaitingPong != nil else { return [] }
        awaitingPong = nil
        return [.startTimer(.heartbeat(generation: generation), after: heartbeat)]
    }

    // MARK: - Helpers

    private mutating func beginConnecting() -> [Action] {
        generation += 1
        phase = .connecting
        return [.report(state), .connect(generation: generation)]
    }

    private mutating func scheduleRetry() -> [Action] {
        token += 1
        if !reachable {
            phase = .offlineWaiting
            return [.report(state)]
        }
        let delay = policy.delay(attempt: attempt, using: &random)
        attempt += 1
        lastDelay = delay
        phase = .waiting(token: token)
        return [.report(state), .startTimer(.retry(token: token), after: delay)]
    }

    private mutating func giveUp(_ error: ChatError) -> [Action] {
        phase = .gaveUp(error)
        return [.reportError(error), .report(state)]
    }

    /// Errors that retrying cannot fix, so the connection gives up at once with the reason: a URL
    /// that can never be opened (scheme, host, port, `wss://` without TLS), a request header that
    /// cannot be sent, a certificate that does not verify, a transport that cannot do WebSockets
    /// here, a handshake refused with 4xx (auth, policy, wrong path; but 408 and 429 ask the
    /// client to come back later), and a close with 1008 (policy violation). Everything else —
    /// refused, reset, timeouts, 5xx, a close with 1001 (going away) or 1011 (server error), a
    /// lost pong — is the network or the server's passing state: back off and retry.
    package static func isFatal(_ error: ChatError) -> Bool {
        switch error {
        case .unusableURL, .invalidURL, .certificateRejected, .unsupported: true
        case .handshakeRejected(let status, _) where (400..<500).contains(status): status != 408 && status != 429
        case .closed(let code, _) where code == .policyViolation: true
        default: false
        }
    }
}
