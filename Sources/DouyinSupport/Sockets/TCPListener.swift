import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking TCP socket listening on 127.0.0.1 only (never another interface): the
/// server side of the package's own socket layer, accepting through a ``SocketLoop``.
package final class TCPListener: Sendable {
    /// The port it listens on (the one the OS picked when 0 was asked for).
    package let port: Int
    private let fd: Int32
    private let loop: SocketLoop
    private let closed = LockedBox(false)

    /// Binds 127.0.0.1:`port` (0: any free port) and listens with a backlog of `backlog`.
    /// - Throws: ``SocketError/system(_:)`` naming `socket`, `bind` (`EADDRINUSE`) or `listen`.
    package init(port: Int, backlog: Int32 = 128, loop: SocketLoop) throws(SocketError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .lastError("socket") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -2 }
        }
        if bound != 0 {
            let error = SocketError.lastError(bound == -2 ? "bind" : "getsockname")
            systemClose(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = SocketError.lastError("listen")
            systemClose(fd)
            throw error
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.loop = loop
    }

    deinit { close() }

    /// The next connection, waiting without a thread until one arrives.
    /// - Throws: ``SocketError/closed`` once ``close()`` ran; `CancellationError`; a failed
    ///   `accept` other than a peer that gave up in the queue (those are skipped).
    package func accept() async throws -> TCPConnection {
        while true {
            guard !closed.withLock({ $0 }) else { throw SocketError.closed }
            let connection = systemAccept(fd)
            if connection >= 0 { return TCPConnection(fd: connection, loop: loop) }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try await loop.wait(for: Int16(POLLIN), on: fd, deadline: nil)
            case EINTR, ECONNABORTED, EPROTO: continue
            case EMFILE, ENFILE:
                // Out of descriptors: the pending connection stays queued; try again once a
                // connection closed rather than spinning.
                throw SocketError.lastError("accept")
            default: throw SocketError.lastError("accept")
            }
        }
    }

    /// Stops listening; a waiting ``accept()`` throws ``SocketError/closed``. Idempotent.
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

/// `accept(2)`, outside the type whose own `accept()` hides the C name.
private func systemAccept(_ fd: Int32) -> Int32 {
    accept(fd, nil, nil)
}

/// `close(2)`, outside the types whose own `close()` hides the C name.
func systemClose(_ fd: Int32) {
    _ = close(fd)
}
