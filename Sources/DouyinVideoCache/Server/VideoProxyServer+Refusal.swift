import DouyinSupport
import Foundation

/// The polite refusal past the connection cap: a `503` the client can read and act on.
extension VideoProxyServer {
    /// Seconds a refused client is asked to wait before it tries again (`Retry-After`): an
    /// answer in progress on a local proxy is a player's range, over in about that long.
    static let retryAfterSeconds = 1
    /// Refused connections allowed to linger at once (see ``refuse(_:)``); past it a newcomer
    /// is closed without an answer, so a flood of connections cannot grow the refusals.
    static let maxLingeringRefusals = 64
    /// How long a refused connection lingers for the client's request and its close.
    static let refusalLinger: Duration = .seconds(2)

    /// The whole answer to a connection past the cap.
    static let serviceUnavailable = Data(("HTTP/1.1 503 Service Unavailable\r\nRetry-After: \(retryAfterSeconds)\r\n"
        + "Content-Length: 0\r\nConnection: close\r\n\r\n").utf8)

    /// Answers `connection` `503 Service Unavailable` with `Retry-After` and
    /// `Connection: close`, then closes it, on a task of its own so the accept loop goes on.
    /// The close lingers (as nginx's does): the write side is shut, and what the client sent
    /// is read and dropped until it closes or ``refusalLinger`` passes. Closing at once with
    /// its request unread would make the kernel reset the connection, and a reset can destroy
    /// the 503 in the client's buffer before it reads it. The connection counts toward
    /// ``Statistics/refusedConnections``, not toward the cap.
    func refuse(_ connection: TCPConnection) {
        let (admitted, newStreak) = refusals.withLock { refusals -> (Bool, Bool) in
            defer { refusals.streak = true }
            guard refusals.lingering < Self.maxLingeringRefusals else { return (false, !refusals.streak) }
            refusals.lingering += 1
            return (true, !refusals.streak)
        }
        counters.withLock { $0.refusedConnections += 1 }
        if newStreak { publish(.full(openConnections: connections.withLock { $0.count })) }
        guard admitted else {
            connection.close()
            return
        }
        Task { [refusals] in
            defer {
                connection.close()
                refusals.withLock { $0.lingering -= 1 }
            }
            let deadline = ContinuousClock.now + Self.refusalLinger
            do {
                try await connection.send(Self.serviceUnavailable, deadline: deadline)
                connection.shutdownWrite()
                var drained = 0
                while drained < 65_536 {
                    let bytes = try await connection.receive(maxCount: 16_384, deadline: deadline)
                    if bytes.isEmpty { break }
                    drained += bytes.count
                }
            } catch {
                // A client that went away, or the linger's end: close either way.
            }
        }
    }
}

/// The refusals past the cap: how many linger now, and whether the server is refusing since
/// it last admitted a connection (``VideoProxyServer/Event/full(openConnections:)`` is told
/// once per such streak, not once per refused client).
struct Refusals {
    var lingering = 0
    var streak = false
}
