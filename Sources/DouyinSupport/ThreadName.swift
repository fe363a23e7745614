#if canImport(Glibc)
import CLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's name of the calling thread, the one `perf`, `top -H` and debuggers show.
/// Foundation's `Thread.name` does not reach it on Linux: a thread it starts keeps its
/// creator's name (a pool thread's, `com.apple.root.default-qos`, cut to 15 bytes).
package enum ThreadName {
    /// Names the calling thread: at most 15 bytes (Linux's limit; a longer name is cut there).
    package static func set(_ name: String) {
        let fitting = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        #if canImport(Glibc)
        _ = douyin_set_thread_name(fitting)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(fitting)
        #endif
    }

    /// The calling thread's name; empty when it has none or it cannot be read.
    package static var current: String {
        var buffer = [CChar](repeating: 0, count: 64)
        #if canImport(Glibc)
        guard douyin_thread_name(&buffer, buffer.count) == 0 else { return "" }
        #elseif canImport(Darwin)
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        #endif
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
