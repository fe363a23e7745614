import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection, non-blocking, whose reads and writes suspend on a
/// ``SocketLoop`` instead of blocking a thread. One reader and one writer at a time (the
/// server's connection task does both, in turn).
package final class TCPConnection: Sendable {
    // Internal, not private: `transfer` (TCPConnection+Transfer) uses them too.
    let fd: Int32
    let loop: SocketLoop
    let closed = LockedBox(false)

    init(fd: Int32, loop: SocketLoop) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.loop = loop
    }

    deinit { close() }

    /// Up to `maxCount` bytes as soon as any arrived; empty at the end of the stream.
    /// - Throws: ``SocketError/timedOut`` when nothing arrived by `deadline` (`nil`: none),
    ///   ``SocketError/closed``, a failed `recv` (`ECONNRESET`), `CancellationError`.
    package func receive(maxCount: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        while true {
            guard !closed.withLock({ $0 }) else { throw SocketError.closed }
            // Received straight into the result, uninitialised room and no copy after: a
            // proxy calls this twice per request (the first finds nothing yet).
            var (count, code): (Int, Int32) = (0, 0)
            let bytes = [UInt8](unsafeUninitializedCapacity: maxCount) { room, initialized in
                count = recv(fd, room.baseAddress, maxCount, 0)
                code = errno
                initialized = max(0, count)
            }
            if count >= 0 { return bytes }
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try await loop.wait(for: Int16(POLLIN), on: fd, deadline: deadline)
            default: throw SocketError.system(SystemError(call: "recv", code: code))
            }
        }
    }

    /// Writes all of `bytes`, waiting for room as the peer reads. With `more` (Linux), the
    /// kernel may hold a last partial segment back to join it with the next write
    /// (`MSG_MORE`): a response head goes out in one segment with its body's first bytes
    /// instead of one of its own, which the client wakes for separately. The next write
    /// without it, or the socket's close, sends what was held.
    /// - Throws: ``SocketError/timedOut`` when the peer stopped reading until `deadline`
    ///   (`nil`: none), ``SocketError/closed``, a failed `send` (`EPIPE`, `ECONNRESET`),
    ///   `CancellationError`.
    package func send(_ bytes: Data, more: Bool = false, deadline: ContinuousClock.Instant?) async throws {
        var offset = 0
        while offset < bytes.count {
            guard !closed.withLock({ $0 }) else { throw SocketError.closed }
            let sent = bytes.withUnsafeBytes { raw in
                #if canImport(Darwin)
                Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #else
                // MSG_NOSIGNAL: a peer that hung up must not kill the process with SIGPIPE.
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0))
                #endif
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try await loop.wait(for: Int16(POLLOUT), on: fd, deadline: deadline)
            default: throw SocketError.lastError("send")
            }
        }
    }

    /// Sends at once what a write with `more` left held back (setting `TCP_NODELAY` again
    /// pushes pending segments on Linux); nothing once closed.
    package func pushHeldBytes() {
        closed.withLock { closed in
            guard !closed else { return }
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Ends this side's writing (`shutdown(SHUT_WR)`: the peer reads the end of the stream)
    /// while reads go on; nothing once closed.
    package func shutdownWrite() {
        closed.withLock { closed in
            if !closed { _ = shutdown(fd, Int32(SHUT_WR)) }
        }
    }

    /// Closes the socket; an operation waiting on it throws ``SocketError/closed``. Idempotent.
    /// - Important: call it from the task that reads and writes (stop others by cancelling
    ///   that task): a `recv` already past its closed check would use a number the kernel
    ///   may have handed to another socket.
    package func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        loop.cancel(fd: fd)
        systemClose(fd)
    }
}
