import DouyinCache
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
/// (``VideoCache/changes(for:)``) until it holds its watermark: it is told after every store,
/// drop and block check, and never polls. Everything the jobs fetch stays cached when they are
/// cancelled; the video cache shares downloads with the player, so nothing is fetched twice.
public final class FeedPreloader: Sendable {
    /// The preloader's settings.
    public struct Configuration: Sendable {
        /// The planner's rules (window, prefix size, watermark, concurrency).
        public var planner = PreloadPlanner.Configuration()
        /// The defaults.
        public init() {}
    }

    /// One job's result, for logs and the `feed preload` verb.
    public struct Event: Sendable, Hashable {
        /// The job.
        public var job: PreloadPlanner.Job
        /// Video: bytes of the job's range held (and indexed) afterwards; image: the file's
        /// size; 0 when it failed or was fetched without storing.
        public var bytes: Int64
        /// Whether anything came from the network (`false`: everything was already held).
        public var fetched: Bool
        /// Why it failed, if it did (cancellation is not a failure and gets no event). A video
        /// job fails unless every byte of its range is held and indexed at its end: a full or
        /// read-only disk, a cache file name taken by a link, FIFO or directory, or bytes dropped
        /// by a new version are failures, never "cached".
        public var failure: String?
        /// Set when a video's bytes were fetched but not stored because another process holds
        /// its cache entry (that process stores them): why. `nil` otherwise.
        public var uncachedReason: String?
    }

    private struct Handle {
        let id: Int
        let task: Task<Void, Never>
        let reader: LockedBox<VideoReader?>
    }

    private struct State {
        var scheduler: PreloadScheduler
        var handles: [PreloadPlanner.Job: Handle] = [:]
        var nextID = 0
        var monitor: Task<Void, Never>?
        var playingURL: URL?
        var readPosition: Int64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var events: [Event] = []
        var closed = false
    }

    /// The settings in use.
    public let configuration: Configuration
    private let videoCache: VideoCache
    private let imageCache: TwoTierCache?
    private let clock: any Clock<Duration>
    private let state: LockedBox<State>

    /// A preloader over the given caches (`imageCache` `nil`: no covers or avatars). `clock`
    /// is for waits the preloader may add; watching the playing video needs none (it listens
    /// to the video cache's changes).
    public init(videoCache: VideoCache, imageCache: TwoTierCache?, configuration: Configuration = Configuration(),
                clock: any Clock<Duration> = ContinuousClock()) {
        var configuration = configuration
        if imageCache == nil { configuration.planner.includesImages = false }
        self.configuration = configuration
        self.videoCache = videoCache
        self.imageCache = imageCache
        self.clock = clock
        state = LockedBox(State(scheduler: PreloadScheduler(configuration: configuration.planner)))
    }

    deinit {
        let handles = state.withLock { state -> [Handle] in
            state.monitor?.cancel()
            return Array(state.handles.values)
        }
        for handle in handles { Self.stop(handle) }
    }

    /// Sets the feed's items and shows `current` (a new feed, or more pages appended).
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
    /// the rest back, or the preloader was cancelled and its jobs have ended).
    public func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.handles.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
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

    /// The jobs running now, for tests and logs.
    public var runningJobs: Set<PreloadPlanner.Job> {
        state.withLock { $0.scheduler.running }
    }

    // MARK: Performing

    /// Runs a scheduler step under the lock; starts the jobs it asks for there (a task does
    /// not run synchronously, so a start's handle is registered before any cancel can look for
    /// it) and stops the cancelled ones after unlocking.
    private func perform(_ step: (inout State) -> [PreloadScheduler.Action]) {
        let (stops, waiters) = state.withLock { state -> ([Handle], [CheckedContinuation<Void, Never>]) in
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
            guard state.handles.isEmpty else { return (stops, []) }
            defer { state.idleWaiters = [] }
            return (stops, state.idleWaiters)
        }
        for handle in stops { Self.stop(handle) }
        for waiter in waiters { waiter.resume() }
    }

    private static func stop(_ handle: Handle) {
        handle.task.cancel()
        handle.reader.withLock { $0 }?.close()
    }

    /// One job, start to end; reports its outcome to the scheduler.
    private func run(_ job: PreloadPlanner.Job, id: Int, reader box: LockedBox<VideoReader?>) async {
        var event = Event(job: job, bytes: 0, fetched: false, failure: nil)
        let outcome: PreloadScheduler.Outcome
        switch job.kind {
        case .videoPrefix, .videoTail:
            let reader = videoCache.reader(for: job.url)
            box.withLock { $0 = reader }
            defer { reader.close() }
            let range = job.range ?? 0..<1
            let before = reader.cachedRanges
            var layout: MP4Layout?
            var failure: (any Error)?
            do {
                if Task.isCancelled { throw CancellationError() }
                try await reader.prefetch(range)
                if job.kind == .videoPrefix {
                    layout = await Self.layout(of: reader, prefix: range)
                }
            } catch {
                failure = error
            }
            // The bytes count as held only once their index is on disk.
            var persistError: VideoCacheError?
            if failure == nil {
                do { try reader.persist() } catch { persistError = error }
            }
            let after = reader.cachedRanges
            let added = after.ranges.flatMap { held in before.missing(in: held.clamped(to: range)) }.filter { !$0.isEmpty }
            if let failure, Task.isCancelled || Self.isCancellation(failure) {
                outcome = .cancelled(added: added)
            } else {
                switch VideoJobVerdict.decide(range: range, length: reader.knownContentInfo?.length, before: before, after: after,
                                              fetchError: failure, uncached: reader.uncachedError, persistError: persistError) {
                case .held(let bytes, let fetched):
                    event.bytes = bytes
                    event.fetched = fetched
                    outcome = .completed(added: added, layout: layout)
                case .uncached(let reason):
                    event.fetched = true
                    event.uncachedReason = reason
                    outcome = .completed(added: added, layout: layout)
                case .failed(let reason):
                    event.failure = reason
                    outcome = .failed(added: added)
                }
            }
        case .cover, .avatar:
            guard let imageCache else { return finish(job, id: id, outcome: .failed(added: []), event: nil) }
            do {
                // prefetch, not fetch: it throws when the disk tier could not store the image,
                // so a line never says "cached" or "network" for bytes that were dropped.
                let (byteCount, source) = try await imageCache.prefetch(job.url, priority: job.kind == .cover ? .high : .normal)
                event.bytes = Int64(byteCount)
                event.fetched = source == .network
                outcome = .completed(added: [], layout: nil)
            } catch {
                if Task.isCancelled || Self.isCancellation(error) {
                    outcome = .cancelled(added: [])
                } else {
                    event.failure = "\(error)"
                    outcome = .failed(added: [])
                }
            }
        }
        let cancelled: Bool = if case .cancelled = outcome { true } else { false }
        finish(job, id: id, outcome: outcome, event: cancelled ? nil : event)
    }

    private func finish(_ job: PreloadPlanner.Job, id: Int, outcome: PreloadScheduler.Outcome, event: Event?) {
        perform { state in
            guard state.handles[job]?.id == id else { return [] }
            state.handles[job] = nil
            if let event { state.events.append(event) }
            return state.scheduler.jobEnded(job, outcome)
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? VideoCacheError, error == .cancelled { return true }
        if let error = error as? CacheError, case .cancelled = error { return true }
        return false
    }

    /// Reads the box headers of a prefix just fetched (held, so no origin traffic: a header
    /// outside the held prefix ends the scan).
    private static func layout(of reader: VideoReader, prefix: Range<Int64>) async -> MP4Layout {
        let length = try? await reader.contentInfo().length
        let held = reader.cachedRanges
        return await MP4Layout.scan(length: length) { offset in
            let end = min(offset + 16, prefix.upperBound, length ?? .max)
            guard offset < end, held.contains(offset..<end) else { return nil }
            return try? await reader.read(offset..<end)
        }
    }

    // MARK: Watching the playing video

    /// (Re)starts the watch that feeds the scheduler the playing video's buffer, once now and
    /// again at every change the video cache announces for it, until admission is fully open.
    private func startMonitor() {
        let playing = state.withLock { state in state.scheduler.current.flatMap { state.scheduler.items[$0].videoURL } }
        let changes = playing.map { videoCache.changes(for: $0) }
        let task = Task { [weak self] in
            guard let changes else {
                self?.checkPlayingBuffer()
                return
            }
            // Not `self` across the wait: a preloader dropped while nothing changes is freed
            // (its deinit cancels this task, which ends the stream).
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                if self.checkPlayingBuffer() { return }
            }
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            defer { state.monitor = state.closed ? nil : task }
            return state.monitor
        }
        old?.cancel()
        if state.withLock({ $0.closed }) { task.cancel() }
    }

    /// Reads the playing video's buffer from the video cache and tells the scheduler;
    /// `true` when admission is fully open (nothing more to watch).
    @discardableResult
    private func checkPlayingBuffer() -> Bool {
        let (url, position) = state.withLock { state -> (URL?, Int64) in
            guard let current = state.scheduler.current else { return (nil, 0) }
            let url = state.scheduler.items[current].videoURL
            if state.playingURL != url {
                state.playingURL = url
                state.readPosition = 0
            }
            return (url, state.readPosition)
        }
        guard let url else {
            perform { $0.scheduler.noPlayingVideo() }
            return true
        }
        // Both asked of the cache without a request or a reader: nothing here touches the index.
        let held = videoCache.cachedRanges(for: url)
        let heldEnd = held.heldRunEnd(from: position) ?? position
        let length = videoCache.contentInfo(for: url)?.length
        let buffer = PreloadScheduler.PlayingBuffer(
            readPosition: position, heldAhead: heldEnd - position,
            isComplete: length.map { held.contains(0..<$0) } ?? false, length: length
        )
        var open = false
        perform { state in
            // A swipe since the read: this buffer belongs to another item.
            guard state.playingURL == url else { return [] }
            let actions = state.scheduler.playingBufferChanged(buffer)
            open = state.scheduler.admission == .complete
            return actions
        }
        return open
    }
}
