import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``POSIXSocket`` call (the blocking client socket) failed. DouyinChat maps these to its
/// `ChatError` cases of the same names. Not ``SocketError``, which is the poll-driven server
/// sockets' (Sockets/): a client needs the host and stage named, a server does not.
package enum ClientSocketError: Error, Sendable, Hashable {
    /// The host name did not resolve; `message` is the resolver's (`gai_strerror`).
    case hostNotFound(host: String, message: String)
    /// Every resolved address refused or failed; `errno` is the last C error (`ECONNREFUSED` …).
    case connectFailed(host: String, port: Int, errno: Int32)
    /// No progress within the deadline; `stage` is the caller's name for the step (`connect`,
    /// `handshake`, `read`, `write` …).
    case timedOut(stage: String)
    /// The connection failed under a read or write; `errno` is the C error code.
    case connectionLost(errno: Int32)
}

/// A connected TCP socket with deadlines (the WebSocket client's, and anything else that needs a
/// blocking client socket). Reads come from one thread; writes are serialised by the caller.
package final class POSIXSocket: @unchecked Sendable {
    // @unchecked: `fd` never changes after init and is closed once, by `closeDescriptor()`,
    // which the connection calls only after its reader thread stopped; the other methods are
    // thread-safe system calls on that descriptor (`shutdown` wakes a blocked `recv`).
    /// The descriptor; valid until ``closeDescriptor()``.
    package let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Resolves `host` and connects to the first address that answers within `timeout` (per
    /// address); TCP_NODELAY set, blocking mode. Throws ``ClientSocketError``.
    package static func connect(host: String, port: Int, timeout: Duration) throws -> POSIXSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ClientSocketError.hostNotFound(host: host, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = ECONNREFUSED
        var timedOut = false
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 { lastError = errno; continue }
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            // Non-blocking connect bounded by poll, then back to blocking.
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = Foundation.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0, errno == EINPROGRESS {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&descriptor, 1, Int32(clamping: milliseconds(timeout)))
                if ready == 0 {
                    timedOut = true
                    result = -1
                } else {
                    var code: Int32 = 0
                    var size = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
                    result = code == 0 ? 0 : -1
                    if code != 0 { errno = code }
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                return POSIXSocket(fd: fd)
            }
            lastError = errno
            Foundation.close(fd)
        }
        if timedOut { throw ClientSocketError.timedOut(stage: "connect") }
        throw ClientSocketError.connectFailed(host: host, port: port, errno: lastError)
    }

    /// Receives up to `count` bytes into `buffer`, waiting at most `timeout` (`nil`: forever).
    /// Returns 0 at end of stream; throws ``ClientSocketError/timedOut(stage:)`` or
    /// ``ClientSocketError/connectionLost(errno:)``.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?, stage: String) throws -> Int {
        while true {
            if let timeout {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, Int32(clamping: Self.milliseconds(timeout)))
                if ready < 0, errno == EINTR { continue }
                if ready == 0 { throw ClientSocketError.timedOut(stage: stage) }
            }
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw ClientSocketError.connectionLost(errno: errno)
        }
    }

    /// Writes all of `bytes`; a peer that stops reading fails it after the send timeout.
    package func sendAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                #if canImport(Darwin)
                Foundation.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #else
                Foundation.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
            }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw ClientSocketError.timedOut(stage: "write") }
                throw ClientSocketError.connectionLost(errno: errno)
            }
            offset += sent
        }
    }

    /// Bounds each blocking `send`, so a server that never reads cannot hang a writer.
    package func setSendTimeout(_ timeout: Duration) {
        let ms = Self.milliseconds(timeout)
        var value = timeval(tv_sec: .init(ms / 1000), tv_usec: .init((ms % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Wakes any blocked `recv` (it returns 0) and fails later writes; the descriptor stays open.
    package func shutdownBoth() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Closes the descriptor; called once, after the reader stopped.
    package func closeDescriptor() {
        Foundation.close(fd)
    }

    /// `duration` in whole milliseconds, 0 for a negative one.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

private func milliseconds(_ duration: Duration) -> Int64 { POSIXSocket.milliseconds(duration) }
