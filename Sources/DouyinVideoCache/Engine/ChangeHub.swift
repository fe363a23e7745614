import DouyinSupport
import Foundation

/// The subscribers of ``VideoCache/changes(for:)``, by cache key: entries announce here after
/// every store, drop and block check, whether or not anyone listens (a lookup when no one does).
///
/// Kept by the cache, not by an entry: a subscriber of a URL whose entry is made later, or made
/// again, hears that entry too. Each element is computed while this hub's lock is held, so the
/// last element a subscriber gets is never older than one it got before: two announcements
/// racing cannot hand it a stale picture last.
final class ChangeHub: Sendable {
    private struct Books {
        var watchers: [String: [Int: AsyncStream<VideoCache.Content>.Continuation]] = [:]
        var nextID = 0
    }

    private let books = LockedBox(Books())

    /// Whether anyone subscribes to `key`.
    func isWatched(_ key: String) -> Bool {
        books.withLock { $0.watchers[key] != nil }
    }

    /// A new subscriber of `key`, told `current()` at once. It holds the newest element only.
    func subscribe(_ key: String, current: () -> VideoCache.Content) -> AsyncStream<VideoCache.Content> {
        let (stream, continuation) = AsyncStream.makeStream(of: VideoCache.Content.self, bufferingPolicy: .bufferingNewest(1))
        let id = books.withLock { books in
            books.nextID += 1
            books.watchers[key, default: [:]][books.nextID] = continuation
            continuation.yield(current())
            return books.nextID
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
        books.withLock { books in
            guard let watchers = books.watchers[key], !watchers.isEmpty else { return }
            let now = content()
            for continuation in watchers.values { continuation.yield(now) }
        }
    }
}
