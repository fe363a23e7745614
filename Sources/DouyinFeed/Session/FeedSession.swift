import DouyinLogging
import DouyinSupport
import DouyinVideoCache
import Foundation

/// A feed session: what an app's player integration drives (the item shown, the player's
/// position, the swipes) and the preloading policy that serves it, over one video cache
/// whose every download feeds one ``BandwidthMeter``.
///
/// ```swift
/// let session = try FeedSession(items: try SessionItem.items(fromFeedJSON: page), directory: caches)
/// session.show(0)
/// player.play(session.gear(for: 0)!.url)      // the same gear its preload used
/// await session.playbackPosition(offset)     // from the player's periodic time observer
/// ```
///
/// Policies: ``Policy/adaptive`` (the default: ``AdaptivePlan``'s rules, window and depth from
/// a ``SessionProfile``), ``Policy/fixed`` (the ``FeedPreloader``'s fixed rule, the baseline:
/// the next 3 × 819,200 bytes and moov tails, gated on 3 s held) and ``Policy/none``.
public final class FeedSession: Sendable {
    /// How a session preloads.
    public enum Policy: String, Sendable, Hashable, CaseIterable {
        /// Start bytes of a learned window, the playing item first, one gear per item.
        case adaptive
        /// The fixed rule of ``FeedPreloader``, on `video.play_addr`.
        case fixed
        /// No preloading.
        case none
    }

    /// The session's settings.
    public struct Configuration: Sendable {
        /// The policy: ``Policy/adaptive`` by default.
        public var policy: Policy = .adaptive
        /// The adaptive rules' numbers.
        public var plan = AdaptivePlan.Configuration()
        /// The learning's numbers.
        public var profile = SessionProfile.Configuration()
        /// The meter's numbers (its warm start included).
        public var meter = BandwidthEstimator.Configuration()
        /// The fixed rule: the planner's defaults with 3 ahead, none behind, no images.
        public var fixed: PreloadPlanner.Configuration = {
            var rule = PreloadPlanner.Configuration()
            rule.behind = 0
            rule.includesImages = false
            return rule
        }()
        /// The video cache's size limit in bytes: 4 GiB by default.
        public var cacheSizeLimit: Int64 = 4 << 30
        /// Where the session tells what it decides: each item shown, each fetch the adaptive
        /// plan starts (item, purpose, bytes), each failed fetch, each gear switched down at
        /// playback. Also handed to the session's `VideoCache` and, for ``Policy/fixed``,
        /// its ``FeedPreloader``, so one hook covers the session. `nil` by default: nothing is
        /// logged.
        public var log: LogHandler?

        /// The defaults.
        public init() {}
    }

    /// Counts for logs and the bench.
    public struct Statistics: Sendable, Hashable {
        /// Items whose preload gear was dropped at playback because it would have stalled.
        public var gearSwitches: Int
        /// Re-plans started by the playing item's cached bytes changing (the cache's change
        /// stream, whoever stored them), beside those started by fetch ends, swipes and positions.
        public var changeReplans: Int
        /// Fetches that failed (an origin error or status, not a fetch a swipe stopped). The
        /// item is not asked again before the next ``FeedSession/show(_:)``, so an origin that
        /// fails at once costs one request per item and swipe, never a loop of them.
        public var failedFetches: Int
        /// Items whose start bytes were learnt from the first bytes of a fetch still under way
        /// (so their `moov` tail was asked for before that fetch ended).
        public var earlyLayouts: Int
        /// The bandwidth estimate now, bits per second.
        public var estimate: Int64
        /// What the session has learned.
        public var profile: SessionProfile
    }

    /// The settings in use.
    public let configuration: Configuration
    /// The feed.
    public let items: [SessionItem]
    /// The cache every byte goes through.
    public let videoCache: VideoCache
    /// The origin in front of the network, counting and metering.
    public let origin: MeteredOrigin
    let preloader: FeedPreloader?
    let state: LockedBox<State>
    let now: @Sendable () -> Duration

    /// What the session knows of an item at its gear.
    struct Known: Sendable {
        var gear: Gear
        var length: Int64?
        var start: StartBytes?
    }

    /// A running fetch.
    struct Lane: Sendable {
        var id: Int
        var fetch: AdaptivePlan.Fetch
        var task: Task<Void, Never>
        var reader: VideoReader
    }

    struct State: Sendable {
        var current: Int?
        var generation = 0
        var shownAt: Duration?
        var readPosition: Int64?
        var known: [Int: Known] = [:]
        var profile: SessionProfile
        /// The playing item's fetches in flight, oldest first (at most the plan's `playingFetches`).
        var playing: [Lane] = []
        /// The preloads in flight, oldest first (at most the plan's `maximumPreloadFetches`).
        var preloads: [Lane] = []
        var nextID = 0
        var gearSwitches = 0
        var changeReplans = 0
        var failedFetches = 0
        var earlyLayouts = 0
        /// Item index → the generation (swipe) in which a fetch of it failed: not planned again
        /// within that generation.
        var failedIn: [Int: Int] = [:]
        var watcher: Task<Void, Never>?
        var closed = false
    }

    /// A session over `items`, caching in `directory` (created if needed), fetching from
    /// `origin` through a meter, timed by `clock`.
    /// - Throws: ``FeedSessionError/cache(_:)`` when the cache cannot be opened there.
    public init<C: Clock>(items: [SessionItem], directory: URL, origin base: any VideoOrigin = HTTPOrigin(),
                          configuration: Configuration = Configuration(), clock: C) throws(FeedSessionError)
    where C.Duration == Duration {
        self.configuration = configuration
        self.items = items
        origin = MeteredOrigin(base, meter: BandwidthMeter(configuration: configuration.meter, clock: clock))
        var cacheConfiguration = VideoCache.Configuration()
        // Held runs are never fetched again to merge two requests: no byte twice.
        cacheConfiguration.coalescingGap = 0
        cacheConfiguration.log = configuration.log
        do {
            videoCache = try VideoCache(directory: directory, sizeLimit: configuration.cacheSizeLimit, origin: origin, configuration: cacheConfiguration)
        } catch {
            throw .cache(error.description)
        }
        if configuration.policy == .fixed {
            var preload = FeedPreloader.Configuration()
            preload.planner = configuration.fixed
            preload.log = configuration.log
            preloader = FeedPreloader(videoCache: videoCache, imageCache: nil, configuration: preload)
        } else {
            preloader = nil
        }
        state = LockedBox(State(profile: SessionProfile(configuration: configuration.profile)))
        let start = clock.now
        now = { start.duration(to: clock.now) }
    }

    /// A session on the continuous clock.
    public convenience init(items: [SessionItem], directory: URL, origin: any VideoOrigin = HTTPOrigin(),
                            configuration: Configuration = Configuration()) throws(FeedSessionError) {
        try self.init(items: items, directory: directory, origin: origin, configuration: configuration, clock: ContinuousClock())
    }

    deinit { cancel() }

    /// The meter every download of the session feeds.
    public var meter: BandwidthMeter { origin.meter }

    /// The gear the player plays item `index` in: for ``Policy/adaptive`` the one its preload
    /// used (chosen when it entered the window, chosen again while nothing of it was fetched),
    /// else `video.play_addr`'s. `nil` for an index outside
    /// the feed or an item without a video.
    public func gear(for index: Int) -> Gear? {
        guard items.indices.contains(index) else { return nil }
        guard configuration.policy == .adaptive else { return items[index].playGear() }
        if let known = state.withLock({ $0.known[index]?.gear }) { return known }
        let (estimate, plan, meanWatch) = (meter.estimate, measuredPlan(), state.withLock { $0.profile.meanWatch })
        return chooseGear(index, estimate: estimate, meanWatch: meanWatch, plan: plan)
    }

    /// Item `index` is now on screen (a swipe): the previous view is learned from, the gear is
    /// kept (switched down only when it would stall), and preloading re-plans at once.
    public func show(_ index: Int) {
        guard items.indices.contains(index) else { return }
        let time = now()
        log(.debug, "item shown", ["index": String(index)])
        switch configuration.policy {
        case .none:
            state.withLock { $0.current = index }
        case .fixed:
            let first = state.withLock { state -> Bool in
                defer { state.current = index }
                return state.current == nil
            }
            if first {
                preloader?.setItems(items.map { FeedItem(videoURL: $0.playGear()?.url, bitRate: $0.playGear()?.bitRate, duration: $0.duration) }, current: index)
            } else {
                preloader?.show(index)
            }
        case .adaptive:
            showAdaptive(index, at: time)
        }
    }

    /// Where the player reads the current item now, in bytes from the file's start; the first
    /// report means playback started.
    public func playbackPosition(_ offset: Int64) async {
        state.withLock { $0.readPosition = max(0, offset) }
        switch configuration.policy {
        case .fixed: await preloader?.playbackPosition(offset)
        case .adaptive: kick()
        case .none: break
        }
    }

    /// Stops every fetch; nothing starts again. Idempotent.
    public func cancel() {
        let (lanes, watcher) = state.withLock { state -> ([Lane], Task<Void, Never>?) in
            state.closed = true
            defer {
                state.playing = []
                state.preloads = []
                state.watcher = nil
            }
            return (state.playing + state.preloads, state.watcher)
        }
        watcher?.cancel()
        for lane in lanes { Self.stop(lane) }
        preloader?.cancel()
    }

    /// The counts now.
    public var statistics: Statistics {
        let estimate = meter.estimate
        return state.withLock {
            Statistics(gearSwitches: $0.gearSwitches, changeReplans: $0.changeReplans, failedFetches: $0.failedFetches,
                       earlyLayouts: $0.earlyLayouts, estimate: estimate, profile: $0.profile)
        }
    }

    static func stop(_ lane: Lane) {
        lane.task.cancel()
        lane.reader.close()
    }

    /// Sends an event to ``Configuration/log``, if one is set (its values built only then);
    /// never called under the state's lock.
    func log(_ level: LogEvent.Level, _ message: String, _ values: @autoclosure () -> [String: String] = [:]) {
        guard let handler = configuration.log else { return }
        handler(LogEvent(level: level, subsystem: "DouyinFeed.FeedSession", message: message, metadata: values()))
    }
}
