import Foundation

/// A value guarded by a lock, changed only inside ``withLock(_:)``.
///
/// Each module keeps its own copy of this small type on purpose: DESIGN.md has the modules
/// depend on nothing but Foundation, and a shared target for 20 lines would break that.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux `Mutex`
/// is a raw futex that Thread Sanitizer cannot see, so every access under it is reported as
/// a race and `make test`'s TSan run could not tell real races from noise.
final class Protected<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
