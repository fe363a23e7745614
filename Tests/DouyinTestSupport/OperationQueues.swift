import Foundation

/// Returns once every queue has no operation left, waiting on a thread outside the task pool
/// (`waitUntilAllOperationsAreFinished` blocks, so it must not run on a pool thread).
public func drained(_ queues: OperationQueue...) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            for queue in queues { queue.waitUntilAllOperationsAreFinished() }
            continuation.resume()
        }
    }
}
