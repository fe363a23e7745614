import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes this type cannot make itself: `sendfile(2)` from a file the caller vouches for under
/// its own lock, waiting on the ``SocketLoop`` for room between attempts.
extension TCPConnection {
    /// What one attempt of ``transfer(deadline:_:)`` did.
    package enum TransferAttempt: Sendable, Equatable {
        /// This many bytes (more than 0) went into the socket.
        case sent(Int)
        /// The socket's buffer is full: wait for the peer to read, then try again.
        case wouldBlock
        /// Nothing more to send this way (the caller's check failed, or the file ended).
        case stop
        /// The write failed with this `errno` (`EPIPE`, `ECONNRESET`).
        case failed(errno: Int32)
    }

    /// Runs `attempt` with the socket's descriptor until it sends something, stops or fails,
    /// waiting for room (`POLLOUT`) each time it says ``TransferAttempt/wouldBlock``. Returns
    /// the bytes sent, 0 for ``TransferAttempt/stop``.
    /// - Throws: ``SocketError/timedOut`` when the peer stopped reading until `deadline`,
    ///   ``SocketError/closed``, the failed write's error, `CancellationError`.
    /// - Important: `attempt` runs on the caller's task and must not block: the socket is
    ///   non-blocking, so a `sendfile` into it returns at once.
    package func transfer(deadline: ContinuousClock.Instant?, _ attempt: (Int32) -> TransferAttempt) async throws -> Int {
        while true {
            guard !closed.withLock({ $0 }) else { throw SocketError.closed }
            switch attempt(fd) {
            case .sent(let count): return count
            case .stop: return 0
            case .wouldBlock: try await loop.wait(for: Int16(POLLOUT), on: fd, deadline: deadline)
            case .failed(let code): throw SocketError.system(SystemError(call: "sendfile", code: code))
            }
        }
    }

    /// Copies up to `count` bytes of the file `file` from `offset` into the non-blocking socket
    /// `socket` inside the kernel (`sendfile(2)`: no copy through user space). `SIGPIPE`, which
    /// `sendfile` raises on a socket whose peer went away (it takes no `MSG_NOSIGNAL`), is held
    /// off for the call and any pending one taken back, so the process never dies of it. On
    /// platforms without Linux's `sendfile` it returns ``TransferAttempt/stop`` (the caller
    /// copies instead).
    package static func sendFile(_ file: Int32, at offset: Int64, count: Int, to socket: Int32) -> TransferAttempt {
        #if canImport(Glibc)
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var position = off_t(offset)
        while true {
            let sent = Glibc.sendfile(socket, file, &position, count)
            if sent > 0 { return .sent(sent) }
            if sent == 0 { return .stop }  // the file ends before `offset`
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EPIPE:
                // Take back the SIGPIPE the call left pending on this thread (blocked above).
                var none = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeOnly, nil, &none)
                return .failed(errno: code)
            default: return .failed(errno: code)
            }
        }
        #else
        return .stop
        #endif
    }
}
