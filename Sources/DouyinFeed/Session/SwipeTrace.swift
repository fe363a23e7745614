import DouyinSupport
import Foundation

/// A replayable session: which item the viewer is shown at each swipe and how long they
/// watch it. JSON `{"swipes": [{"item": K, "watch_ms": W}, …]}`.
public struct SwipeTrace: Codable, Sendable, Hashable {
    /// One view.
    public struct Swipe: Codable, Sendable, Hashable {
        /// The item's index in the feed.
        public var item: Int
        /// Milliseconds from the item being shown to the next swipe.
        public var watchMilliseconds: Int

        /// A view from its parts.
        public init(item: Int, watchMilliseconds: Int) {
            self.item = item
            self.watchMilliseconds = watchMilliseconds
        }

        enum CodingKeys: String, CodingKey {
            case item
            case watchMilliseconds = "watch_ms"
        }
    }

    /// The views in order.
    public var swipes: [Swipe]

    /// A trace of the given views.
    public init(swipes: [Swipe]) {
        self.swipes = swipes
    }

    /// A trace shaped like published short-video retention, the same for the same seed: about
    /// 35 % skips (0.2–1 s), 45 % a body of views of 1.5–6 s, 20 % full views (the item's
    /// `length`), and `backShare` (0.06 by default) backward swipes (to the item before).
    /// Items go forward from 0 and wrap at `itemCount`.
    public static func generated(seed: UInt64, swipes count: Int, itemCount: Int, backShare: Double = 0.06,
                                 length: (Int) -> Duration) -> SwipeTrace {
        var random = SplitMix(state: seed)
        var swipes: [Swipe] = []
        var current = 0
        var furthest = 0
        for n in 0..<max(0, count) {
            if n > 0 {
                if random.unit() < backShare, current > 0 {
                    current -= 1
                } else {
                    furthest += 1
                    current = furthest % max(1, itemCount)
                }
            }
            let kind = random.unit()
            let watch: Double
            if kind < 0.35 {
                watch = 0.2 + random.unit() * 0.8
            } else if kind < 0.8 {
                watch = 1.5 + random.unit() * 4.5
            } else {
                watch = length(current).inSeconds
            }
            swipes.append(Swipe(item: current, watchMilliseconds: Int((watch * 1000).rounded())))
        }
        return SwipeTrace(swipes: swipes)
    }
}

/// SplitMix64, so a seed gives the same trace on every platform and Swift version.
private struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in 0..<1 (53 random bits).
    mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
