import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test process runs under Thread Sanitizer (`swift test --sanitize=thread`),
/// found from its runtime's entry point being linked in: Swift has no compile-time condition
/// for it.
public enum ThreadSanitizer {
    /// `true` when `__tsan_init` resolves in the running process.
    public static let isActive: Bool = {
        #if canImport(Glibc)
        let everything: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT on glibc
        #else
        let everything = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT on Darwin
        #endif
        return dlsym(everything, "__tsan_init") != nil
    }()
}

/// The minutes a test's hang guard (`.timeLimit(.minutes(HangGuard.minutes))`) allows: one,
/// five under Thread Sanitizer. That pass starts every suite at once, 5-20x slower, and in a
/// fresh-clone run three tests whose bodies take milliseconds waited 150 s for a thread and
/// failed a one-minute limit. The guard is there to end a wait that would never end, which it
/// still does; how fast the code is lives in `make bench`.
public enum HangGuard {
    /// 1, or 5 when ``ThreadSanitizer/isActive``.
    public static let minutes = ThreadSanitizer.isActive ? 5 : 1
}
