import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How every URLSession in the package is made and torn down.
///
/// - No URL cache: the caches keep the bytes; URLCache would keep them twice, ignores query
///   strings on Linux, and a task cancelled while FoundationNetworking reads its URL cache traps
///   (seen under Thread Sanitizer here).
/// - Torn down from its own delegate queue: `invalidateAndCancel()` walks FoundationNetworking's
///   task registry from the calling thread, which raced the session's own callbacks.
/// - Its delegate callbacks on a ``SerialDelegateQueue`` unless the caller brings a queue.
package enum URLSessions {
    /// A session over a copy of `configuration` (ephemeral by default) with caching turned
    /// off; the caller's configuration object is left as it was. `delegateQueue` `nil` (the
    /// default) gives the session a ``SerialDelegateQueue`` of its own.
    package static func make(
        configuration original: URLSessionConfiguration = .ephemeral,
        delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        // A class: changing the caller's object would leak into its later sessions.
        let configuration = original.copy() as! URLSessionConfiguration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue ?? SerialDelegateQueue())
    }

    /// Cancels `session`'s tasks and invalidates it, from the session's own queue; returns at once.
    package static func tearDown(_ session: URLSession) {
        session.getAllTasks { tasks in
            tasks.forEach { $0.cancel() }
            session.finishTasksAndInvalidate()
        }
    }
}

/// A session's delegate queue: one operation at a time, over a serial dispatch queue of its own.
///
/// Without one, FoundationNetworking makes an `OperationQueue` over a concurrent dispatch queue:
/// each callback waits for a thread of the global pool, which adds none while the processors
/// look busy, while libcurl keeps reading on the session's own serial queue and hands every
/// chunk to the delegate queue as an operation holding the bytes. Under load the first chunk
/// of an endless body reached the delegate after 1.6 s with gigabytes queued behind it (found
/// in `Downloader`), so a consumer's buffer limit was never seen. A serial dispatch queue is
/// served by libdispatch's overcommit pool, which gives it a thread at once.
package final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: OperationQueue is thread-safe; `dispatchQueue` is immutable.

    /// Held here because `underlyingQueue` does not retain it (unowned(unsafe) on Linux): the
    /// dispatch queue lives exactly as long as the operation queue that dispatches onto it.
    private let dispatchQueue: DispatchQueue

    /// A serial queue named `label` (shown in debuggers and crash logs).
    package init(label: String = "DouyinSupport.URLSessions.delegate") {
        dispatchQueue = DispatchQueue(label: label)
        super.init()
        name = label
        maxConcurrentOperationCount = 1
        underlyingQueue = dispatchQueue
    }
}
