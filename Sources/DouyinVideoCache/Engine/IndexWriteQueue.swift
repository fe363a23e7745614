import Foundation

/// Where a download's index writes run while it goes on (``ResourceEntry/schedulePersist()``):
/// a serial queue of its own — a thread of its own, never one of the async tasks' pool — shared
/// by every entry of the process; writes to one disk take turns there anyway.
package enum IndexWriteQueue {
    private static let key = DispatchSpecificKey<Bool>()

    /// The queue.
    static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "DouyinVideoCache.indexWrites")
        queue.setSpecific(key: key, value: true)
        return queue
    }()

    /// Whether the caller runs on the queue (tests see where an index write's `fsync`s run).
    package static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
