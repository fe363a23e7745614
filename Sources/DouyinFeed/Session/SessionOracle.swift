import DouyinSupport
import Foundation

/// A link's rate over a session's time: a rate from the start, changed at given times (a
/// drop and its recovery, say). Times are offsets from the session's first view.
public struct LinkSchedule: Sendable, Hashable {
    /// One change: from `start` on, `bitsPerSecond`.
    public struct Step: Sendable, Hashable {
        /// When the rate takes effect.
        public var start: Duration
        /// The rate, bits per second (0: nothing flows).
        public var bitsPerSecond: Int64

        /// A step from its parts.
        public init(start: Duration, bitsPerSecond: Int64) {
            self.start = start
            self.bitsPerSecond = bitsPerSecond
        }
    }

    /// The steps in time order; the first starts at zero.
    public let steps: [Step]

    /// A link of `bitsPerSecond` from the start, then each of `changes` (sorted by time here;
    /// a change at or before zero replaces the starting rate).
    public init(bitsPerSecond: Int64, changes: [Step] = []) {
        var steps = [Step(start: .zero, bitsPerSecond: max(0, bitsPerSecond))]
        for change in changes.sorted(by: { $0.start < $1.start }) {
            let step = Step(start: max(.zero, change.start), bitsPerSecond: max(0, change.bitsPerSecond))
            if step.start == steps[steps.count - 1].start { steps[steps.count - 1] = step } else { steps.append(step) }
        }
        self.steps = steps
    }

    /// The rate at `time`, bits per second.
    public func rate(at time: Duration) -> Int64 {
        steps.last { $0.start <= time }?.bitsPerSecond ?? 0
    }

    /// Bits the link can carry from the start until `time`.
    public func capacity(until time: Duration) -> Double {
        var bits = 0.0
        for (index, step) in steps.enumerated() where step.start < time {
            let end = index + 1 < steps.count ? min(time, steps[index + 1].start) : time
            bits += Double(step.bitsPerSecond) * (end - step.start).inSeconds
        }
        return bits
    }
}

/// The bench's oracle: a planner that knows the whole trace and the link in advance, and the
/// score no policy can beat on them (an upper bound, not a plan a player could run).
///
/// It plays every view from the moment it is shown, never stalls and fetches nothing that is
/// not played, so it pays no wait, stall or waste. What it can play is bounded by the link
/// alone: every bit a view plays must have crossed the link before that view ends, so the
/// bits of views 1...k fit in the capacity until view k's end. A view's bits are its gear
/// times the media seconds it reaches that the item's earlier views did not hold (a view back
/// to an item replays what they held — their watch time and the second of start media the
/// player holds before it starts; seconds past the end of the file need no bits); those it
/// needs none for are counted at the top gear. Relaxed so (any gear, fractional, per view;
/// no request latency; no start bytes beyond what is played), every real session satisfies
/// the same constraints, so its score is at most the oracle's. Within them, filling each view
/// as early as the capacity allows is optimal: every megabit earns the same, and a bit spent
/// on an earlier view counts against every later constraint anyway.
public enum SessionOracle {
    /// What the oracle knows of an item: its length and its best gear.
    public struct Item: Sendable, Hashable {
        /// The media's length.
        public var duration: Duration
        /// The top gear's bitrate, bits per second.
        public var topBitRate: Int

        /// An item from its parts.
        public init(duration: Duration, topBitRate: Int) {
            self.duration = duration
            self.topBitRate = topBitRate
        }
    }

    /// The oracle's score on `trace` over `link`, with the feed's `items` (indexed as the
    /// trace's) and μ = `waitCharge` Mbit/s (the bench's: the feed's top gear); its
    /// ``SessionScore/playedMegabits`` is what it plays, every charge zero.
    public static func score(trace: SwipeTrace, items: [Item], link: LinkSchedule, waitCharge: Double) -> SessionScore {
        var shown = Duration.zero
        var reached: [Int: Duration] = [:]
        var spent = 0.0
        var played = 0.0
        for swipe in trace.swipes {
            let watch = Duration.milliseconds(max(0, swipe.watchMilliseconds))
            let end = shown + watch
            shown = end
            guard items.indices.contains(swipe.item) else { continue }
            let item = items[swipe.item]
            let top = Double(max(1, item.topBitRate))
            let before = reached[swipe.item] ?? .zero
            let extent = min(watch, item.duration)
            let fresh = max(.zero, extent - before).inSeconds
            // What the view leaves held: its media plus the second of start media the player
            // model holds before it starts (counting more held only raises the bound).
            reached[swipe.item] = max(before, min(item.duration, watch + .seconds(1)))
            let bits = min(top * fresh, max(0, link.capacity(until: end) - spent))
            spent += bits
            played += bits / 1e6 + top / 1e6 * (watch.inSeconds - fresh)
        }
        return SessionScore(playedMegabits: played, waitSeconds: 0, stallSeconds: 0, unplayedMegabits: 0,
                            watchSeconds: shown.inSeconds, waitCharge: waitCharge)
    }
}
