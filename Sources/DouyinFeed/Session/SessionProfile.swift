import DouyinSupport
import Foundation

/// What a session has learned of its viewer, and the window and depth it sets: small,
/// deterministic (the same views give the same numbers), explained in the DocC article
/// "Adaptive preloading".
///
/// - The recent watch times say how often the viewer passes an item faster than the link
///   can fetch the start of another: the window (``window(fetchTime:)``) holds enough items
///   that a run of such quick views outlasting it is rarer than ``Configuration/tolerance``.
/// - The skip share (views shorter than ``Configuration/skipTime``, an exponentially weighted
///   share, as is the mean watch time) and
///   the mean watch time say how far into a video the viewer gets: the depth — seconds of
///   media preloaded beyond the start bytes — is the mean watch time less the first second,
///   scaled by the share of views that are not skips, at most ``Configuration/maxDepth``
///   (zero, depth off, by default). Skips make it shallower, long views deeper.
public struct SessionProfile: Sendable, Hashable {
    /// The learning's numbers.
    public struct Configuration: Sendable, Hashable {
        /// The mean watch time before any view: 3 s by default.
        public var priorWatch: Duration = .seconds(3)
        /// The skip share before any view: 0.3 by default.
        public var priorSkipShare: Double = 0.3
        /// How much the latest view counts in each mean (0...1): 0.25 by default.
        public var learningRate: Double = 0.25
        /// A view shorter than this is a skip: 1 s by default.
        public var skipTime: Duration = .seconds(1)
        /// How rare a run of quick views that empties the window may be: 0.02 by default.
        public var tolerance: Double = 0.02
        /// How many recent views the window's odds are learned from: 32 by default.
        public var memory = 32
        /// The window's bounds in items ahead: 1...4 by default.
        public var windowRange: ClosedRange<Int> = 1...4
        /// The most items ahead whose start bytes a link that would idle otherwise fetches,
        /// past the window (``AdaptivePlan/spareStartFetch(beyond:estimate:playingBitRate:configuration:)``);
        /// 0 (the default) turns that rule off. Each item further is ready for one more quick
        /// view in a row, but costs its start bytes at the gear chosen when it was fetched
        /// should the viewer never get there or the link drop before it (then it plays a
        /// lower gear). In the bench at 4: 4 Mbit/s with 200 ms to each first byte went from
        /// 86 to 93 % of forward swipes ready, but the link that drops from 8 to 1.5 Mbit/s
        /// left 14–15 % of its bytes never played instead of 8–9 % and scored 75–77 a
        /// watched minute instead of 82–84, so it is off until it weighs the gear and the
        /// link's trend (BENCHMARKS.md, "Feed sessions").
        public var spareReach = 0
        /// The most seconds preloaded beyond the start bytes of window items (rule 4 of
        /// ``AdaptivePlan``); zero (the default) turns depth off. The nearest item gets its
        /// buffer beyond its start bytes as its lead either way; depth adds it to the items
        /// past the nearest, early, while bandwidth is spare. In the bench (session 24, the
        /// adaptive policy with depth at 2 s and off, side by side on six links) score, ready
        /// share and stall stayed the same within a run's noise, and depth cost 2.2–2.6 points
        /// of the origin's bytes never played where the first byte is slow and the viewer
        /// swipes often (4 Mbit/s at 200 ms: 10.3 % against 7.7 %; 5 Mbit/s at 300 ms: 13.2 %
        /// against 11.0 %): the items past the nearest are the ones a quick view or the
        /// session's end leaves unplayed. What it bought: a quick swipe into such an item
        /// finds media beyond its start bytes instead of waiting for a top-up's first byte
        /// (BENCHMARKS.md, "Session 24").
        public var maxDepth: Duration = .zero

        /// The defaults.
        public init() {}
    }

    /// The numbers in use.
    public let configuration: Configuration
    /// The weighted mean watch time.
    public private(set) var meanWatch: Duration
    /// The weighted share of skips (0...1).
    public private(set) var skipShare: Double
    /// Views learned from.
    public private(set) var views = 0
    /// The latest watch times, oldest first, at most ``Configuration/memory`` of them.
    public private(set) var recentWatches: [Duration] = []

    /// A profile that has seen no view.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        meanWatch = configuration.priorWatch
        skipShare = min(1, max(0, configuration.priorSkipShare))
    }

    /// Learns from one view that lasted `watch`.
    public mutating func viewed(_ watch: Duration) {
        let rate = min(1, max(0, configuration.learningRate))
        let watch = max(.zero, watch)
        meanWatch = .clampedSeconds(meanWatch.inSeconds * (1 - rate) + watch.inSeconds * rate)
        skipShare = skipShare * (1 - rate) + (watch < configuration.skipTime ? rate : 0)
        views += 1
        recentWatches.append(watch)
        if recentWatches.count > max(1, configuration.memory) { recentWatches.removeFirst(recentWatches.count - max(1, configuration.memory)) }
    }

    /// The odds that the viewer's next view is shorter than `time`: the recent views' share,
    /// blended with two views' worth of the prior (``Configuration/priorSkipShare`` of views
    /// spread evenly under ``Configuration/skipTime``), so a few views do not make it 0 or 1.
    public func shareShorter(than time: Duration) -> Double {
        let skip = max(.milliseconds(1), configuration.skipTime)
        let prior = min(1, max(0, configuration.priorSkipShare)) * min(1, time.inSeconds / skip.inSeconds)
        let shorter = Double(recentWatches.filter { $0 < time }.count)
        return (shorter + 2 * prior) / (Double(recentWatches.count) + 2)
    }

    /// Items ahead worth their start bytes when fetching one takes `fetchTime`: the fewest
    /// within ``Configuration/windowRange`` such that that many views in a row, each shorter
    /// than `fetchTime` (each passing an item before the link could add one), are rarer than
    /// ``Configuration/tolerance``.
    public func window(fetchTime: Duration) -> Int {
        let range = configuration.windowRange
        let odds = shareShorter(than: fetchTime)
        let tolerance = min(0.999, max(1e-6, configuration.tolerance))
        guard odds > tolerance else { return range.lowerBound }
        guard odds < 1 else { return range.upperBound }
        let items = Int((log(tolerance) / log(odds)).rounded(.up))
        return min(range.upperBound, max(range.lowerBound, items))
    }

    /// Seconds of media worth preloading beyond an item's start bytes.
    public var depth: Duration {
        let beyondFirst = max(0, meanWatch.inSeconds - 1) * (1 - skipShare)
        return .clampedSeconds(min(configuration.maxDepth.inSeconds, beyondFirst))
    }
}
