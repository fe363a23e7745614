import DouyinBackendLauncher
import Foundation

/// Returns once every queue has no operation left (`waitUntilAllOperationsAreFinished` blocks,
/// so it waits on a thread of its own: see ``onOwnThread(_:)``).
public func drained(_ queues: OperationQueue...) async {
    try? await onOwnThread {
        for queue in queues { queue.waitUntilAllOperationsAreFinished() }
    }
}
