import DouyinSupport
import Foundation

/// What a session has learned of its viewer, and the window and depth it sets: small,
/// deterministic (the same views give the same numbers), explained in the DocC article
/// "Adaptive preloading".
///
/// - The mean watch time (an exponentially weighted mean) says how fast the viewer swipes:
///   the window holds the items reached within ``Configuration/lookahead`` at that pace.
/// - The skip share (views shorter than ``Configuration/skipTime``, weighted the same way) and
///   the mean watch time say how far into a video the viewer gets: the depth — seconds of
///   media preloaded beyond the start bytes — is the mean watch time less the first second,
///   scaled by the share of views that are not skips, at most ``Configuration/maxDepth``.
///   Skips make it shallower, long views deeper.
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
        /// How far ahead in time the window reaches: 6 s by default.
        public var lookahead: Duration = .seconds(6)
        /// The window's bounds in items ahead: 1...3 by default.
        public var windowRange: ClosedRange<Int> = 1...3
        /// The most seconds preloaded beyond the start bytes: 2 s by default.
        public var maxDepth: Duration = .seconds(2)

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
    }

    /// Items ahead worth their start bytes: those reached within the lookahead at the mean
    /// pace, within ``Configuration/windowRange``.
    public var window: Int {
        let pace = max(0.25, meanWatch.inSeconds)
        let items = Int((configuration.lookahead.inSeconds / pace).rounded(.up))
        return min(configuration.windowRange.upperBound, max(configuration.windowRange.lowerBound, items))
    }

    /// Seconds of media worth preloading beyond an item's start bytes.
    public var depth: Duration {
        let beyondFirst = max(0, meanWatch.inSeconds - 1) * (1 - skipShare)
        return .clampedSeconds(min(configuration.maxDepth.inSeconds, beyondFirst))
    }
}
