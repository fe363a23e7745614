import DouyinBackendLauncher

/// A value made once, on a thread of its own, for every test that asks for it: a test server
/// shared by a whole suite.
///
/// Why not a `static let`: its initializer runs on the first caller's thread, and every other
/// caller blocks until it finished. A server's start blocks for as long as it takes the child
/// to print its port, seconds on a loaded machine, and the callers are tests on the task pool,
/// two threads on a two-core machine: the whole test run stood still meanwhile.
public actor StartedOnce<Value: Sendable> {
    private let make: @Sendable () throws -> Value
    private var started: Task<Value, any Error>?

    /// Remembers how to make the value; nothing runs until ``value()`` is first awaited.
    public init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
    }

    /// The value, made by the first call on a thread of its own (``onOwnThread(_:)``); the
    /// first call's error is every call's error.
    public func value() async throws -> Value {
        if let started { return try await started.value }
        let make = self.make
        let task = Task { try await onOwnThread(make) }
        started = task
        return try await task.value
    }
}
