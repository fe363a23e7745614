import Foundation

/// Runs `body` on a new thread named `name` and returns what it returned (or throws what it
/// threw), for blocking work that must not hold a thread async tasks share.
///
/// The result crosses to the caller through a lock as well as the continuation. When the thread
/// resumes the continuation before the awaiting task has suspended, the task goes on without
/// passing through the concurrency runtime's annotated hand-over, and Thread Sanitizer, which
/// does not see the runtime's own atomics, reported every field `body` wrote as a data race
/// (seen: a WebSocket connection made during a connect on its own thread, then sent on).
package func onNewThread<Value: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    let handOff = LockedBox<Result<Value, any Error>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            let result = Result { try body() }
            handOff.withLock { $0 = result }
            continuation.resume()
        }
        thread.name = name
        thread.start()
    }
    guard let result = handOff.withLock({ $0 }) else {
        fatalError("onNewThread resumed before its thread handed off a result")
    }
    return try result.get()
}
