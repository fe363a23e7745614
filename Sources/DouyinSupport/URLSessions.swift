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
package enum URLSessions {
    /// A session over a copy of `configuration` (ephemeral by default) with caching turned
    /// off; the caller's configuration object is left as it was.
    package static func make(
        configuration original: URLSessionConfiguration = .ephemeral,
        delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        // A class: changing the caller's object would leak into its later sessions.
        let configuration = original.copy() as! URLSessionConfiguration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// Cancels `session`'s tasks and invalidates it, from the session's own queue; returns at once.
    package static func tearDown(_ session: URLSession) {
        session.getAllTasks { tasks in
            tasks.forEach { $0.cancel() }
            session.finishTasksAndInvalidate()
        }
    }
}
