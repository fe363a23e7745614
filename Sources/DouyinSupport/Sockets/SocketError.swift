#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a socket operation of ``TCPListener`` or ``TCPConnection`` failed.
package enum SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The deadline passed before the socket was ready (a slow or silent peer).
    case timedOut
    /// The socket was closed by this side (``TCPConnection/close()``, a stopped loop) while
    /// an operation waited on it.
    case closed
    /// A system call failed: the call and its `errno` (`ECONNRESET`, `EPIPE`, `EADDRINUSE` …).
    case system(SystemError)

    /// One line saying what went wrong.
    package var description: String {
        switch self {
        case .timedOut: "socket deadline passed"
        case .closed: "socket closed"
        case .system(let error): error.description
        }
    }

    /// The error for the `errno` a failed `call` just set.
    static func lastError(_ call: String) -> SocketError {
        .system(SystemError(call: call, code: errno))
    }
}
