import DouyinSupport
import Foundation

/// The subscribers of ``VideoCache/changes(for:)``, by cache key: entries announce here after
/// every store, drop and block check, whether or not anyone listens (a lookup when no one does).
///
/// Kept by the cache, not by an entry: a subscriber of a URL whose entry is made later, or made
/// again, hears that entry too. Announcements are made one at a time, each element computed and
/// handed out under ``announcing``, so two announcements of an entry racing cannot hand a
/// subscriber the older picture last. (An eviction or a remove announces "nothing held" as a
/// fixed value, after the cache's locks are released: a resource made again and stored into in
/// between can be announced before it.)
///
/// Nothing is yielded under ``books``: a stream's termination handler takes that lock, and it
/// runs while the task consuming the stream is being cancelled, with that task's status locked;
/// a yield that wakes the same task waits for that status lock. Yielding under ``books`` was a
/// deadlock (a feed session cancelled while a download announced: both threads of Swift's task
/// pool stood still, in a Thread Sanitizer pass). ``announcing`` is never taken by a
/// termination handler, and ``books`` is only held for a lookup or an insert.
final class ChangeHub: Sendable {
    private struct Books {
        var watchers: [String: [Int: AsyncStream<VideoCache.Content>.Continuation]] = [:]
        var nextID = 0
    }

    private let books = LockedBox(Books())
    /// Held around computing and handing out one announcement (or a new subscriber's first
    /// element). Taken before ``books``, never inside it. It boxes a count of announcements,
    /// read by nothing: a box of `Void` is zero-sized, and Thread Sanitizer reports such a
    /// value's access as racing with the lock's own load (see `ResourceEntry.persistLock`).
    private let announcing = LockedBox(0)

    /// Whether anyone subscribes to `key`.
    func isWatched(_ key: String) -> Bool {
        books.withLock { $0.watchers[key] != nil }
    }

    /// A new subscriber of `key`, told `current()` at once. It holds the newest element only.
    func subscribe(_ key: String, current: () -> VideoCache.Content) -> AsyncStream<VideoCache.Content> {
        let (stream, continuation) = AsyncStream.makeStream(of: VideoCache.Content.self, bufferingPolicy: .bufferingNewest(1))
        let id = announcing.withLock { _ in
            let id = books.withLock { books in
                books.nextID += 1
                books.watchers[key, default: [:]][books.nextID] = continuation
                return books.nextID
            }
            continuation.yield(current())
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.books.withLock { books in
                books.watchers[key]?[id] = nil
                if books.watchers[key]?.isEmpty == true { books.watchers[key] = nil }
            }
        }
        return stream
    }

    /// Tells every subscriber of `key` what `content()` says now.
    func publish(for key: String, _ content: () -> VideoCache.Content) {
        announcing.withLock { count in
            guard let watchers = books.withLock({ $0.watchers[key] }), !watchers.isEmpty else { return }
            let now = content()
            count += 1
            for continuation in watchers.values { continuation.yield(now) }
        }
    }
}
