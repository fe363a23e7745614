import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A loopback port where nothing listens, held for as long as this value lives: a socket is
/// bound to it but never listens, so a connection there is refused, and no other server can
/// take the port meanwhile. A stopped server's port is not that: the kernel hands it to the
/// next server that asks (a test's "refused" request once reached another test's nginx and
/// got a 404).
public final class ClosedPort: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Int32

    /// Binds a socket to a free loopback port without listening on it.
    public init() throws {
        (descriptor, port) = try bindLoopback(listenBacklog: nil)
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:PORT/douyin/`, the form of ``LocalBackend/baseURL``.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/douyin/")! }
}

/// A TCP socket bound to a free port on 127.0.0.1, listening with `listenBacklog` when one is
/// given (`nil`: bound only, so connections are refused). The one copy of this set-up for every
/// harness that needs a raw socket.
/// - Returns: the socket's descriptor (the caller closes it) and its port.
public func bindLoopback(listenBacklog: Int32?) throws -> (descriptor: Int32, port: Int) {
    #if canImport(Glibc)
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let socketFD = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard socketFD >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
        }
    }
    guard bound, listenBacklog.map({ listen(socketFD, $0) == 0 }) ?? true else {
        close(socketFD)
        throw POSIXError(.EADDRINUSE)
    }
    return (socketFD, Int(UInt16(bigEndian: address.sin_port)))
}
