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
