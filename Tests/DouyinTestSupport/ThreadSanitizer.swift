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

/// The minutes a test's hang guard (`.timeLimit(.minutes(HangGuard.minutes))`) allows: five,
/// ten under Thread Sanitizer. The guard is there to end a wait that would never end, not to
/// time the code (speed lives in `make bench`), so it is far above what a loaded machine takes:
/// a whole-suite run on two cores, 24 tests at once, has stood still for 80 s (tests whose
/// bodies take milliseconds reported 82 s), and one-minute limits failed there; under Thread
/// Sanitizer everything runs 5-20x slower.
public enum HangGuard {
    /// 5, or 10 when ``ThreadSanitizer/isActive``.
    public static let minutes = ThreadSanitizer.isActive ? 10 : 5
}
