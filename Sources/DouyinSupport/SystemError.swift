#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which C call, and the `errno` it set.
package struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function that failed, such as `"pwrite"`.
    package let call: String
    /// The `errno` value, such as `ENOSPC`.
    package let code: Int32

    /// Records a failure of `call` with `code`.
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The C library's text for the code, such as "No space left on device".
    package var reason: String { String(cString: strerror(code)) }

    /// Whether the disk (or the user's quota) is full.
    package var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }

    /// `call: reason (errno N)`.
    package var description: String { "\(call): \(reason) (errno \(code))" }
}
