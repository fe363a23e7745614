import DouyinCache
import DouyinLogging
import DouyinSupport
import DouyinVideoCache
import DouyinWebP
import Foundation

/// Turns cover URLs (animated WebP) into first frames for a grid: from the two-tier cache when
/// held (decoded on the WebP decode queues), else from one progressive download per URL that
/// shows the first frame as soon as its bytes are in, long before the file is complete, and
/// stores the whole file in the cache when it is.
///
/// ```swift
/// let covers = CoverPipeline(imageCache: images)
/// let frame = try await covers.firstFrame(for: url)            // visible cell
/// let later = Task { try await covers.firstFrame(for: next, priority: .prefetch) }
/// later.cancel()                                                // the cell went away
/// ```
///
/// Rules: however many cells ask for one URL, one download and one decode serve them (DouyinSupport's
/// single flight); a waiter that cancels leaves without disturbing the others, and the download
/// stops when the last one leaves. At most ``Configuration/maxConcurrentDownloads`` download at once, visible
/// requests before prefetches, each in the order asked. A download that has shown its first
/// frame while other covers wait for a slot pauses (its bytes kept) and gives its slot up; it
/// finishes later, after every cover waiting for a first frame has started, with a range request
/// for the rest (`If-Range` on the first answer's validator, so a changed file comes whole).
///
/// The cache's own downloader hands out whole files only, so this pipeline reads the body
/// itself as it arrives (over a DouyinVideoCache origin, `URLSessionOrigin` by default) and
/// stores the file in the cache at the end. The slot and order decisions are `CoverScheduler`'s,
/// a pure value; this class performs them.
public final class CoverPipeline: Sendable {
    /// The pipeline's settings; checked by ``init(imageCache:decodeQueues:origin:configuration:)``.
    public struct Configuration: Sendable, Hashable {
        /// Downloads at once: 4 by default; 1 or more.
        public var maxConcurrentDownloads = 4
        /// The largest canvas decoded, in pixels: WebPAnimation's default (16.7 M) by default;
        /// 1 or more.
        public var maxCanvasPixels = WebPAnimation.defaultMaxCanvasPixels
        /// Where the pipeline's events go: each cover download's start, its first frame shown
        /// before the file was complete, its end with the bytes, its failure. `nil` by default:
        /// nothing is logged.
        public var log: LogHandler?
        /// The defaults.
        public init() {}
    }

    /// How urgent a request is; ``visible`` ranks above ``prefetch``.
    public enum Priority: Sendable, Hashable, Comparable {
        /// Off screen, fetched ahead.
        case prefetch
        /// On screen now.
        case visible
    }

    /// Counts, for tests and logs.
    public struct Statistics: Sendable, Hashable {
        /// Downloads started.
        public var downloads = 0
        /// First frames shown before their file was complete.
        public var progressiveFirstFrames = 0
        /// First frames decoded from a cached file.
        public var cachedFirstFrames = 0
        /// Downloads cancelled because every waiter left.
        public var cancelledDownloads = 0
        /// Downloads paused after their first frame to free the slot for a cover still without
        /// one (each finishes later with a range request for the rest of the file).
        public var pausedDownloads = 0
    }

    /// One flight's waiters (DouyinSupport's single flight): they get the first frame, or the
    /// failure before it; the flight's id ties it to the scheduler's flight.
    struct Waiters: Sendable {
        let flight: Int
        let call: SingleFlight<WebPCanvasFrame>
    }

    struct State {
        var scheduler: CoverScheduler
        /// The waiters of each flight in the scheduler, by URL.
        var waiters: [URL: Waiters] = [:]
        /// The task performing each flight's download, by flight id.
        var tasks: [Int: Task<Void, Never>] = [:]
        var cachedFirstFrames = 0
        /// Callers of ``idle()``.
        var idleWaiters = IdleWaiters()
        /// Callers of ``joined(_:)``, by URL.
        var joinWaiters: [URL: IdleWaiters] = [:]

        /// What is left to do after unlocking: tasks to cancel, idle callers to wake.
        struct Effects {
            var cancel: [Task<Void, Never>] = []
            var wake: [SingleFlight<Void>] = []

            func perform() {
                for task in cancel { task.cancel() }
                for flight in wake { flight.finish(.success(())) }
            }
        }

        /// Carries out the scheduler's actions that must happen under the lock (a task is
        /// registered before it can end: a task does not run synchronously) and returns the rest.
        mutating func apply(_ actions: [CoverScheduler.Action], _ pipeline: CoverPipeline) -> Effects {
            var effects = Effects()
            for action in actions {
                switch action {
                case .download(let url, let id):
                    tasks[id] = Task { await pipeline.download(url, flight: id) }
                case .finishPaused(let url, let id, let resume):
                    tasks[id] = Task { await pipeline.finishPaused(url, flight: id, resume) }
                case .cancel(let url, let id):
                    if waiters[url]?.flight == id { waiters[url] = nil }
                    if let task = tasks.removeValue(forKey: id) { effects.cancel.append(task) }
                }
            }
            if scheduler.isIdle, let idle = idleWaiters.release() { effects.wake.append(idle) }
            return effects
        }

        /// The callers of ``CoverPipeline/joined(_:)`` for `url`, to wake: a request now waits.
        mutating func releaseJoinWaiters(_ url: URL) -> SingleFlight<Void>? {
            joinWaiters.removeValue(forKey: url).flatMap { waiters in
                var waiters = waiters
                return waiters.release()
            }
        }

        /// Flight `id` of `url` was abandoned (every waiter left before its frame).
        mutating func abandon(_ url: URL, flight id: Int, _ pipeline: CoverPipeline) -> Effects {
            if waiters[url]?.flight == id { waiters[url] = nil }
            return apply(scheduler.abandoned(url, flight: id), pipeline)
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    let imageCache: TwoTierCache
    let decodeQueues: WebPDecodeQueues
    let origin: any VideoOrigin
    let state: LockedBox<State>

    /// A pipeline with the default settings (always valid) over `imageCache`, decoding cached
    /// files on `decodeQueues` and downloading over `origin` (HTTP on its own session by
    /// default; a `FileOrigin` serves `file://` covers, throttled if asked, as the demo does).
    public convenience init(imageCache: TwoTierCache, decodeQueues: WebPDecodeQueues = WebPDecodeQueues(),
                            origin: any VideoOrigin = HTTPOrigin()) {
        self.init(checked: Configuration(), imageCache: imageCache, decodeQueues: decodeQueues, origin: origin)
    }

    /// A pipeline with `configuration` over `imageCache`, decoding on `decodeQueues` and
    /// downloading over `origin` (as ``init(imageCache:decodeQueues:origin:)``).
    ///
    /// - Throws: ``CoverError/configurationOutOfRange(field:value:allowed:)`` naming the first
    ///   field outside its range (``Configuration/maxConcurrentDownloads`` or
    ///   ``Configuration/maxCanvasPixels`` below 1); nothing is clamped.
    public convenience init(imageCache: TwoTierCache, decodeQueues: WebPDecodeQueues = WebPDecodeQueues(),
                            origin: any VideoOrigin = HTTPOrigin(), configuration: Configuration) throws(CoverError) {
        if configuration.maxConcurrentDownloads < 1 {
            throw .configurationOutOfRange(field: "maxConcurrentDownloads", value: String(configuration.maxConcurrentDownloads), allowed: "1 or more")
        }
        if configuration.maxCanvasPixels < 1 {
            throw .configurationOutOfRange(field: "maxCanvasPixels", value: String(configuration.maxCanvasPixels), allowed: "1 or more pixels")
        }
        self.init(checked: configuration, imageCache: imageCache, decodeQueues: decodeQueues, origin: origin)
    }

    private init(checked configuration: Configuration, imageCache: TwoTierCache, decodeQueues: WebPDecodeQueues, origin: any VideoOrigin) {
        self.imageCache = imageCache
        self.decodeQueues = decodeQueues
        self.origin = origin
        self.configuration = configuration
        state = LockedBox(State(scheduler: CoverScheduler(maxConcurrentDownloads: configuration.maxConcurrentDownloads)))
    }

    /// Counts so far.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.scheduler.statistics
            statistics.cachedFirstFrames = state.cachedFirstFrames
            return statistics
        }
    }

    /// The composited first frame of the cover at `url`.
    ///
    /// - Throws: ``CoverError``, or `CancellationError` when the calling task is cancelled
    ///   (the download goes on while other callers wait for it).
    public func firstFrame(for url: URL, priority: Priority = .visible) async throws -> WebPCanvasFrame {
        if let data = imageCache.cachedData(for: url) {
            let frame = try await decodeFirstFrame(of: data, url: url)
            state.withLock { $0.cachedFirstFrames += 1 }
            return frame
        }
        let (subscription, effects) = state.withLock { state -> (SingleFlight<WebPCanvasFrame>.Subscription, State.Effects) in
            var effects = State.Effects()
            if let existing = state.waiters[url] {
                if let subscription = existing.call.subscribe() {
                    _ = state.scheduler.request(url, priority: priority)
                    if !existing.call.isFinished, let watchers = state.releaseJoinWaiters(url) {
                        effects.wake.append(watchers)
                    }
                    return (subscription, effects)
                }
                // Its last waiter left and its abandonment has not been carried out yet: do it
                // here (the handler then finds nothing left to do) and start afresh.
                effects = state.abandon(url, flight: existing.flight, self)
            }
            let call = SingleFlight<WebPCanvasFrame>()
            let (id, _, actions) = state.scheduler.request(url, priority: priority)
            state.waiters[url] = Waiters(flight: id, call: call)
            call.onAbandoned { [self] in
                self.state.withLock { $0.abandon(url, flight: id, self) }.perform()
            }
            guard let subscription = call.subscribe() else { preconditionFailure("a new flight refused its first waiter") }
            let more = state.apply(actions, self)
            effects.cancel += more.cancel
            effects.wake += more.wake
            if let watchers = state.releaseJoinWaiters(url) { effects.wake.append(watchers) }
            return (subscription, effects)
        }
        effects.perform()
        return try await subscription.value()
    }

    /// Returns once no download is running, waiting or paused (every file stored or given up):
    /// for tests and benchmarks that check what a run left in the cache. Cancelling the calling
    /// task ends the wait only.
    package func idle() async {
        await state.withLock { $0.scheduler.isIdle ? nil : $0.idleWaiters.subscribe() }?.waitForIdle()
    }

    /// Returns once some request for `url` waits on its download (joined, no frame yet): for
    /// tests that must order a second cover behind the first without a sleep.
    package func joined(_ url: URL) async {
        await state.withLock { state -> SingleFlight<Void>.Subscription? in
            if let waiters = state.waiters[url], waiters.call.waiterCount > 0, !waiters.call.isFinished { return nil }
            return state.joinWaiters[url, default: IdleWaiters()].subscribe()
        }?.waitForIdle()
    }

    /// How many requests wait on the download of `url` now (for tests that cancel one waiter
    /// only once the others have joined).
    package func waiterCount(for url: URL) -> Int {
        state.withLock { $0.waiters[url]?.call.waiterCount ?? 0 }
    }

    /// Raises (or lowers) a waiting URL's priority: a cell scrolled into view.
    public func setPriority(_ priority: Priority, for url: URL) {
        state.withLock { $0.apply($0.scheduler.setPriority(priority, for: url), self) }.perform()
    }

    /// After the frame: pauses this download (keeping `data`) when a cover waits for a slot
    /// to show its own first frame. Returns whether it did; the caller then stops reading.
    func pauseIfOthersWait(_ url: URL, flight: Int, data: Data, info: VideoContentInfo) -> Bool {
        // Without a known length a resumed range could not be checked as complete: keep going.
        guard let length = info.length, Int64(data.count) < length else { return false }
        let (paused, effects) = state.withLock { state -> (Bool, State.Effects) in
            let (paused, actions) = state.scheduler.pauseIfOthersWait(url, flight: flight, resume: CoverResume(held: data, info: info))
            return (paused, state.apply(actions, self))
        }
        effects.perform()
        return paused
    }

    /// Hands the first frame (or the failure before it) to the flight's waiters, and to every
    /// request that joins it until its download ends.
    func resume(_ url: URL, flight: Int, with result: Result<WebPCanvasFrame, any Error>, progressive: Bool) {
        let call = state.withLock { state -> SingleFlight<WebPCanvasFrame>? in
            guard let waiters = state.waiters[url], waiters.flight == flight else { return nil }
            if case .success = result { state.scheduler.shown(url, flight: flight, progressive: progressive) }
            return waiters.call
        }
        call?.finish(result)
    }

    /// The flight's download ended (stored, failed or given up): free its slot.
    func finishDownload(_ url: URL, flight: Int) {
        state.withLock { state -> State.Effects in
            if state.waiters[url]?.flight == flight { state.waiters[url] = nil }
            state.tasks[flight] = nil
            return state.apply(state.scheduler.finished(url, flight: flight), self)
        }.perform()
    }
}
