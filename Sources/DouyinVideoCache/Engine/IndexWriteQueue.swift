import Foundation

/// Where index writes run when their caller must not block: a download's while it goes on
/// (``ResourceEntry/schedulePersist()``) and a proxy connection's close after an answer that
/// stored bytes. A serial queue of its own — a thread of its own, never one of the async
/// tasks' pool — shared by every entry of the process; writes to one disk take turns there
/// anyway.
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
