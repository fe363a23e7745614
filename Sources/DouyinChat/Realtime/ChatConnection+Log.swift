import DouyinLogging
import Foundation

/// The log lines of ``ChatConnection``, decided apart from I/O: which events a connection's life
/// produces and what each says. A handful per connection attempt, never one per message.
///
/// Subsystem `DouyinChat.ChatConnection`; metadata `url` (the push URL without its query, which
/// may carry a token), and as they apply `attempt` (retries since the last stable connection),
/// `delay` (seconds, the backoff drawn), `code` and `reason` (a close), `error`.
package enum ChatConnectionLog {
    /// The subsystem of every event.
    package static let subsystem = "DouyinChat.ChatConnection"

    /// The event for a state the connection reports: `connecting` (debug), `connected` (info),
    /// `reconnect scheduled` with the backoff (notice), `waiting for the network` (notice),
    /// `gave up` (error), `stopped` (info); `nil` for `idle`.
    package static func event(for state: ChatConnection.State, url: URL) -> LogEvent? {
        var metadata = ["url": redacted(url)]
        switch state {
        case .idle:
            return nil
        case .connecting(let attempt):
            metadata["attempt"] = "\(attempt)"
            return LogEvent(level: .debug, subsystem: subsystem, message: "connecting", metadata: metadata)
        case .open:
            return LogEvent(level: .info, subsystem: subsystem, message: "connected", metadata: metadata)
        case .waiting(let attempt, let delay?):
            metadata["attempt"] = "\(attempt)"
            metadata["delay"] = seconds(delay)
            return LogEvent(level: .notice, subsystem: subsystem, message: "reconnect scheduled", metadata: metadata)
        case .waiting(let attempt, nil):
            metadata["attempt"] = "\(attempt)"
            return LogEvent(level: .notice, subsystem: subsystem, message: "waiting for the network", metadata: metadata)
        case .closed:
            return LogEvent(level: .info, subsystem: subsystem, message: "stopped", metadata: metadata)
        case .gaveUp(let error):
            metadata["error"] = error.description
            return LogEvent(level: .error, subsystem: subsystem, message: "gave up", metadata: metadata)
        }
    }

    /// The event for an error the connection reports (each is followed by the state that says
    /// whether it retries or gave up), notice level, named by what failed: `handshake failed`
    /// (the server answered other than 101, or a broken 101), `connect failed` (refused,
    /// resolver, TLS, certificate, a timeout before the upgrade, an unusable URL), `closed by the
    /// server` with its `code` and `reason`, or `connection lost` (a drop, a lost pong, a
    /// protocol violation, a read timeout) with the `error`.
    package static func event(error: ChatError, url: URL) -> LogEvent {
        var metadata = ["url": redacted(url)]
        let message: String
        switch error {
        case .closed(let code, let reason):
            metadata["code"] = "\(code.code)"
            metadata["reason"] = reason
            return LogEvent(level: .notice, subsystem: subsystem, message: "closed by the server", metadata: metadata)
        case .handshakeRejected, .handshakeInvalid:
            message = "handshake failed"
        case .connectFailed, .hostNotFound, .certificateRejected, .tlsFailed, .unusableURL, .invalidURL, .unsupported:
            message = "connect failed"
        case .timedOut(let stage) where stage == "connect" || stage == "handshake":
            message = "connect failed"
        default:
            message = "connection lost"
        }
        metadata["error"] = error.description
        return LogEvent(level: .notice, subsystem: subsystem, message: message, metadata: metadata)
    }

    /// `url` without its query and fragment (a push URL's query may carry a token).
    package static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unprintable URL)" }
        components.query = nil
        components.fragment = nil
        components.password = nil
        return components.string ?? "(unprintable URL)"
    }

    /// A duration in seconds with millisecond precision (`0.250`).
    package static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let milliseconds = whole * 1000 + fraction / 1_000_000_000_000_000
        return String(format: "%.3f", Double(milliseconds) / 1000)
    }
}
