import Foundation

/// Returns once every queue has no operation left (`waitUntilAllOperationsAreFinished` blocks,
/// so it waits on a thread of its own: see ``onOwnThread(_:)``).
public func drained(_ queues: OperationQueue...) async {
    try? await onOwnThread {
        for queue in queues { queue.waitUntilAllOperationsAreFinished() }
    }
}

/// Runs a blocking `body` on a new thread of its own and returns its result.
///
/// Not on the task pool (two threads on a two-core machine), and not on the global dispatch
/// queue either: its worker count also follows the core count, and FoundationNetworking hands
/// session callbacks to it. Three tests each blocking a global-queue worker in a 30 s wait for
/// a backend request stalled every URLSession in the process until the waits timed out.
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Swift.Result { try body() })
        }
        thread.name = "DouyinTestSupport.onOwnThread"
        thread.start()
    }
}
