import DouyinLogging
import DouyinSupport
import Foundation

/// Fetches many images ahead of need into a ``TwoTierCache``: the cells just past the screen.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(cache: images)
/// prefetcher.startPrefetching(with: upcomingCoverURLs)
/// prefetcher.stopPrefetching(with: urlsScrolledPastTheOtherWay)
/// ```
///
/// Rules:
/// - **Behind visible work.** At most ``Configuration/maxConcurrentPrefetches`` prefetches are
///   handed to the cache at once (the rest wait here, in the order asked), each at
///   ``Configuration/priority`` (``DownloadPriority/low`` by default), so a visible fetch
///   queued in the downloader behind them runs first and most of the downloader's slots stay
///   free for what is on screen.
/// - **No duplicate downloads.** A prefetch is an ordinary waiter of the cache's shared
///   download for its URL: a visible ``TwoTierCache/fetch(_:priority:progress:)`` of the same
///   URL joins the prefetch's download (and raises its priority) instead of starting another,
///   and the other way round. A URL asked twice is prefetched once.
/// - **Cancel.** Stopping a URL drops it from the waiting list or leaves the cache's wait; the
///   download itself stops only when no one else (a visible fetch) waits for it.
///
/// Failures are counted in ``Statistics`` and otherwise dropped: a prefetch is a hint, and the
/// visible fetch that follows reports its own error.
public final class ImagePrefetcher: Sendable {
    /// The prefetcher's settings.
    public struct Configuration: Sendable, Hashable {
        /// Prefetches handed to the cache at once: 2 by default; 1 or more.
        public var maxConcurrentPrefetches: Int
        /// The downloader priority of a prefetch: ``DownloadPriority/low`` by default, below a
        /// visible fetch's ``DownloadPriority/normal``.
        public var priority: DownloadPriority
        /// Where the prefetcher tells each prefetch's start, end, failure and cancellation.
        /// `nil` by default: the cache's ``TwoTierCache/Configuration/log`` is used (nothing is
        /// logged when that is `nil` too).
        public var log: LogHandler?

        /// Builds a configuration; it stores the values as given (the prefetcher checks them);
        /// `log` `nil` by default.
        public init(maxConcurrentPrefetches: Int = 2, priority: DownloadPriority = .low, log: LogHandler? = nil) {
            self.maxConcurrentPrefetches = maxConcurrentPrefetches
            self.priority = priority
            self.log = log
        }
    }

    /// What the prefetcher did since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Prefetches that ended with the image held (downloaded now or found in a tier).
        public var completed = 0
        /// Prefetches that failed (the download's error, or a disk that could not store it).
        public var failed = 0
        /// Prefetches stopped before they ended (waiting or running).
        public var cancelled = 0
    }

    private struct State {
        /// URLs asked for and not started yet, oldest first.
        var waiting: [URL] = []
        /// URLs handed to the cache, each with the task waiting on it and that task's number
        /// (a URL stopped and asked again gets a new one; the old task's end must not count).
        var running: [URL: (id: Int, task: Task<Void, Never>)] = [:]
        var nextID = 0
        var statistics = Statistics()
        var idleWaiters = IdleWaiters()
        var isIdle: Bool { waiting.isEmpty && running.isEmpty }

        /// The idle waiters to wake (after unlocking) when nothing is left.
        mutating func releaseIfIdle() -> SingleFlight<Void>? { isIdle ? idleWaiters.release() : nil }
    }

    /// The settings in use.
    public let configuration: Configuration
    private let cache: TwoTierCache
    private let state = LockedBox(State())
    /// The configuration's hook, else the cache's.
    private let log: LogHandler?

    /// A prefetcher into `cache` with the default settings (2 at once, low priority).
    public convenience init(cache: TwoTierCache) {
        self.init(cache: cache, checked: Configuration())
    }

    /// A prefetcher into `cache` with `configuration`.
    ///
    /// - Throws: ``CacheError/configurationOutOfRange(field:value:allowed:)`` when
    ///   ``Configuration/maxConcurrentPrefetches`` is below 1; nothing is clamped.
    public convenience init(cache: TwoTierCache, configuration: Configuration) throws(CacheError) {
        guard configuration.maxConcurrentPrefetches >= 1 else {
            throw .configurationOutOfRange(
                field: "maxConcurrentPrefetches", value: String(configuration.maxConcurrentPrefetches), allowed: "1 or more")
        }
        self.init(cache: cache, checked: configuration)
    }

    private init(cache: TwoTierCache, checked configuration: Configuration) {
        self.cache = cache
        self.configuration = configuration
        log = configuration.log ?? cache.log
    }

    /// Counts so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// How many URLs are waiting or running now.
    public var pendingCount: Int { state.withLock { $0.waiting.count + $0.running.count } }

    /// Queues `urls` for prefetching, in order, after those already queued; a URL already
    /// waiting or running is not queued again.
    public func startPrefetching(with urls: [URL]) {
        state.withLock { state in
            for url in urls where state.running[url] == nil && !state.waiting.contains(url) {
                state.waiting.append(url)
            }
        }
        startWaiting()
    }

    /// Stops prefetching `urls`: waiting ones are dropped, running ones leave the cache's wait
    /// (their download stops unless a visible fetch waits for it too). Unknown URLs are ignored.
    public func stopPrefetching(with urls: [URL]) {
        let stopping = Set(urls)
        let (stopped, idle) = state.withLock { state -> ([(URL, Task<Void, Never>?)], SingleFlight<Void>?) in
            var stopped: [(URL, Task<Void, Never>?)] = state.waiting.filter { stopping.contains($0) }.map { ($0, nil) }
            state.waiting.removeAll { stopping.contains($0) }
            for url in stopping {
                if let running = state.running.removeValue(forKey: url) { stopped.append((url, running.task)) }
            }
            state.statistics.cancelled += stopped.count
            return (stopped, state.releaseIfIdle())
        }
        for (url, task) in stopped {
            task?.cancel()
            log(.debug, "prefetch cancelled", url, ["was": task == nil ? "waiting" : "running"])
        }
        idle?.finish(.success(()))
        startWaiting()
    }

    /// Stops every prefetch, waiting or running.
    public func stopAll() {
        let urls = state.withLock { $0.waiting + Array($0.running.keys) }
        stopPrefetching(with: urls)
    }

    /// Returns once nothing waits or runs (every prefetch ended or stopped); at once when idle.
    /// Cancelling the calling task ends the wait only.
    package func idle() async {
        await state.withLock { $0.isIdle ? nil : $0.idleWaiters.subscribe() }?.waitForIdle()
    }

    /// Hands waiting URLs to the cache while fewer than the limit run.
    private func startWaiting() {
        let started = state.withLock { state -> [URL] in
            var started: [URL] = []
            while state.running.count < configuration.maxConcurrentPrefetches, !state.waiting.isEmpty {
                let url = state.waiting.removeFirst()
                state.nextID += 1
                let id = state.nextID
                // Registered before it can end: a task does not run synchronously.
                state.running[url] = (id, Task { [self] in await prefetch(url, id: id) })
                started.append(url)
            }
            return started
        }
        for url in started { log(.debug, "prefetch started", url) }
    }

    private func prefetch(_ url: URL, id: Int) async {
        var outcome: Result<(byteCount: Int, source: CacheSource), any Error>
        do {
            outcome = .success(try await cache.prefetch(url, priority: configuration.priority))
        } catch {
            outcome = .failure(error)
        }
        let (counted, idle) = state.withLock { state -> (Bool, SingleFlight<Void>?) in
            // A stopped prefetch was counted (and taken out) by `stopPrefetching`.
            guard state.running[url]?.id == id else { return (false, nil) }
            state.running[url] = nil
            switch outcome {
            case .success: state.statistics.completed += 1
            case .failure: state.statistics.failed += 1
            }
            return (true, state.releaseIfIdle())
        }
        if counted {
            switch outcome {
            case .success(let held):
                log(.debug, "prefetch ended", url, ["bytes": String(held.byteCount), "source": held.source.rawValue])
            case .failure(let error):
                log(.notice, "prefetch failed", url, ["error": "\(error)"])
            }
        }
        idle?.finish(.success(()))
        startWaiting()
    }

    /// Sends an event to the hook, if there is one (its values built only then).
    private func log(_ level: LogEvent.Level, _ message: String, _ url: URL, _ values: @autoclosure () -> [String: String] = [:]) {
        guard let log else { return }
        log(LogEvent(level: level, subsystem: "DouyinCache.ImagePrefetcher", message: message,
                     metadata: values().merging(["url": url.absoluteString]) { $1 }))
    }
}
