import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A TCP socket connected to `127.0.0.1:port`, or `nil` when nothing accepts there; the caller
/// closes it. The harnesses use it to see a server is up and to talk to its debug endpoints
/// without a URLSession of their own.
func connectLoopback(port: Int) -> Int32? {
    #if canImport(Glibc)
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let socketFD = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard socketFD >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        close(socketFD)
        return nil
    }
    return socketFD
}
