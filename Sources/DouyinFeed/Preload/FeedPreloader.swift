import DouyinCache
import DouyinLogging
import DouyinSupport
import DouyinVideoCache
import Foundation

/// Keeps the caches warm around the current feed item without slowing the playing video:
/// performs a ``PreloadScheduler``'s decisions over a `VideoCache` (first bytes of the next
/// videos, the `moov` tail of non-faststart files) and a `TwoTierCache` (covers, avatars).
///
/// ```swift
/// let preloader = FeedPreloader(videoCache: videos, imageCache: images)
/// preloader.setItems(try FeedItem.items(fromFeedJSON: page), current: 0)
/// preloader.playbackPosition(reader.position)   // as the player reads
/// preloader.show(1)                             // on a swipe: re-plans at once
/// ```
///
/// While the current video plays, it listens to the video cache's change stream for that video
/// (`VideoCache.changes(for:)`) until it holds its watermark: it is told after every store,
/// drop and block check, and never polls. Everything the jobs fetch stays cached when they are
/// cancelled; the video cache shares downloads with the player, so nothing is fetched twice.
public final class FeedPreloader: Sendable {
    /// The preloader's settings.
    public struct Configuration: Sendable {
        /// The planner's rules (window, prefix size, watermark, concurrency).
        public var planner = PreloadPlanner.Configuration()
        /// Where the preloader's events go: each job's start, and its end (bytes held, whether
        /// any came from the network) or failure; cancelled jobs end at `debug`. `nil` by
        /// default: nothing is logged.
        public var log: LogHandler?
        /// The defaults.
        public init() {}
    }


    /// A running job: its task, and the reader it reads through (closed to stop it at once).
    struct Handle {
        let id: Int
        let task: Task<Void, Never>
        let reader: LockedBox<VideoReader?>
    }

    /// Everything that changes, under one lock.
    struct State {
        var scheduler: PreloadScheduler
        var handles: [PreloadPlanner.Job: Handle] = [:]
        var nextID = 0
        var monitor: Task<Void, Never>?
        var playingURL: URL?
        var readPosition: Int64 = 0
        /// Callers of ``FeedPreloader/idle()``, woken when the last job ends.
        var idleWaiters = IdleWaiters()
        var events: [Event] = []
        var closed = false
    }

    /// The settings in use.
    public let configuration: Configuration
    let videoCache: VideoCache
    let imageCache: TwoTierCache?
    let state: LockedBox<State>

    /// A preloader over the given caches (`imageCache` `nil`: no covers or avatars). It needs
    /// no clock: it waits only on the video cache's changes and on its own jobs.
    public init(videoCache: VideoCache, imageCache: TwoTierCache?, configuration: Configuration = Configuration()) {
        var configuration = configuration
        if imageCache == nil { configuration.planner.includesImages = false }
        self.configuration = configuration
        self.videoCache = videoCache
        self.imageCache = imageCache
        state = LockedBox(State(scheduler: PreloadScheduler(configuration: configuration.planner)))
    }

    deinit {
        // Cancelled outside the lock: a cancelled task's handlers may take it.
        let (monitor, handles) = state.withLock { state in (state.monitor, Array(state.handles.values)) }
        monitor?.cancel()
        for handle in handles { Self.stop(handle) }
    }

    /// Sets the feed's items and shows `current` (a new feed, or more pages appended).
    ///
    /// A `current` outside `items` (an empty feed) leaves no current item: running preloads
    /// are cancelled (their bytes stay cached) and nothing starts until ``show(_:)``.
    public func setItems(_ items: [FeedItem], current: Int) {
        perform { $0.scheduler.setItems(items, current: current) }
        startMonitor()
    }

    /// The current item changed (a swipe): re-plans at once, cancels work outside the window,
    /// and holds preloads back until the new playing video has its watermark.
    public func show(_ index: Int) {
        perform { $0.scheduler.show(index) }
        startMonitor()
    }

    /// Where the player reads the current video now (bytes from its start); checks the
    /// buffer at once.
    public func playbackPosition(_ offset: Int64) async {
        state.withLock { $0.readPosition = max(0, offset) }
        checkPlayingBuffer()
    }

    /// Lets preloads run without a playing video (a tool warming caches, a paused feed): two at a time.
    public func preloadWithoutPlayback() {
        perform { $0.scheduler.noPlayingVideo() }
    }

    /// Stops everything: running jobs are cancelled (their bytes stay cached and counted),
    /// nothing starts again. Idempotent.
    public func cancel() {
        let (handles, monitor) = state.withLock { state in
            state.closed = true
            defer { state.monitor = nil }
            return (Array(state.handles.values), state.monitor)
        }
        monitor?.cancel()
        for handle in handles { Self.stop(handle) }
    }

    /// Returns once no job runs and none can start now (the window is done, admission holds
    /// the rest back, or the preloader was cancelled and its jobs have ended); at once when
    /// idle. A caller whose task is cancelled stops waiting at once, without an error, and
    /// leaves the jobs and the other callers as they were.
    public func idle() async {
        await state.withLock { $0.handles.isEmpty ? nil : $0.idleWaiters.subscribe() }?.waitForIdle()
    }

    /// The counts so far (bytes read by items still in the window counted as played).
    public var statistics: PreloadScheduler.Statistics {
        state.withLock { $0.scheduler.currentStatistics }
    }

    /// The admission now.
    public var admission: PreloadScheduler.Admission {
        state.withLock { $0.scheduler.admission }
    }

    /// Takes the events of the jobs that ended since the last call, in the order they ended.
    public func takeEvents() -> [Event] {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }

    /// The jobs running now (started and not yet ended, a cancelled one until it has ended),
    /// for tests and logs; empty once ``cancel()``'s jobs have ended.
    public var runningJobs: Set<PreloadPlanner.Job> {
        // The tasks, not the scheduler's books: after cancel() the books still admit the jobs
        // the cancel ended (their outcome frees their slot), and nothing starts them.
        state.withLock { Set($0.handles.keys) }
    }

    // MARK: Performing

    /// Runs a scheduler step under the lock; starts the jobs it asks for there (a task does
    /// not run synchronously, so a start's handle is registered before any cancel can look for
    /// it) and stops the cancelled ones after unlocking.
    func perform(_ step: (inout State) -> [PreloadScheduler.Action]) {
        let (stops, idle) = state.withLock { state -> ([Handle], SingleFlight<Void>?) in
            var stops: [Handle] = []
            for action in step(&state) {
                switch action {
                case .start:
                    // Cancelled: the scheduler's books still run (ends are counted), nothing starts.
                    guard !state.closed, case .start(let job) = action else { continue }
                    state.nextID += 1
                    let reader = LockedBox<VideoReader?>(nil)
                    let id = state.nextID
                    let task = Task { [self] in await run(job, id: id, reader: reader) }
                    state.handles[job] = Handle(id: id, task: task, reader: reader)
                case .cancel(let job):
                    if let handle = state.handles[job] { stops.append(handle) }
                }
            }
            return (stops, state.handles.isEmpty ? state.idleWaiters.release() : nil)
        }
        for handle in stops { Self.stop(handle) }
        idle?.finish(.success(()))
    }

    static func stop(_ handle: Handle) {
        handle.task.cancel()
        handle.reader.withLock { $0 }?.close()
    }
}
