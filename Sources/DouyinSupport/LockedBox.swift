import Foundation

/// A value guarded by a lock, read and changed only inside ``withLock(_:)``.
///
/// The one lock box of the package: every module's shared mutable state lives in one of these
/// (or in an actor), never in a hand-rolled `NSLock` + `var` pair.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux `Mutex` is a
/// raw futex that Thread Sanitizer cannot see, so every access under it is reported as a race.
///
/// `Sendable` only when `Value` is: a box of non-Sendable state must not cross isolation
/// domains just because it has a lock (the rule of swift-nio's `NIOLockedValueBox`).
///
/// - Important: `body` must not call back into code that takes the same box's lock: `NSLock`
///   is not recursive. Perform side effects (callbacks, KVO, resuming continuations) after
///   `withLock` returns.
@usableFromInline
package final class LockedBox<Value> {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// Boxes `value`.
    @inlinable package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @inlinable package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` as ``withLock(_:)`` does if the lock is free now; `nil` without waiting when
    /// another thread holds it (for a thread that must not wait, such as an event loop's).
    @inlinable package func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched while `lock` is held, and it is Sendable itself.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
