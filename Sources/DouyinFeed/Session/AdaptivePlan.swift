import DouyinVideoCache
import Foundation

/// The adaptive policy's rules, pure: what the playing item needs next, and what a preload
/// may fetch once the playing item is served. No state and no I/O; ``FeedSession`` keeps the
/// state and performs the fetches.
///
/// 1. The playing item first, always: its start bytes, then its buffer kept
///    ``Configuration/playAhead`` ahead of the read position (topped up by at least
///    ``Configuration/refill`` at a time, so each request is worth its round trip).
/// 2. Nothing else while the playing item holds less than ``Configuration/playAhead`` ahead
///    (and is not held to its end).
/// 3. Then the start bytes of each item in the window, nearest first, with
///    ``Configuration/lead`` more media: the read position starts at the end of the start
///    bytes, so without a lead the first top-up's round trip would stall every start (an item
///    whose layout is not known yet gets a probe of its first bytes, usually most of them).
/// 4. Then, only while bandwidth is spare (the estimate times ``Configuration/spareFraction``
///    above the playing gear's bitrate), the profile's depth of each window item, nearest first.
public enum AdaptivePlan {
    /// The rules' numbers.
    public struct Configuration: Sendable, Hashable {
        /// The playing item's buffer target, as media time at its gear: 1.5 s by default
        /// (what is ahead at a swipe is never played: a deeper buffer costs bytes).
        public var playAhead: Duration = .milliseconds(1500)
        /// The least media a top-up of the playing item fetches: 0.5 s by default.
        public var refill: Duration = .milliseconds(500)
        /// Media preloaded past a window item's start bytes with them: 0.5 s by default.
        public var lead: Duration = .milliseconds(500)
        /// Bytes probed before an item's layout is known, on top of 1 s of its media: 32,768.
        public var probeBytes: Int64 = 32 * 1024
        /// The share of the estimate the playing gear may use before depth is fetched: 0.5.
        public var spareFraction: Double = 0.5

        /// The defaults.
        public init() {}
    }

    /// Why a fetch is made.
    public enum Purpose: Sendable, Hashable {
        /// The playing item's start bytes (or their probe).
        case playingStart
        /// The playing item's buffer.
        case playing
        /// A window item's first bytes, before its layout is known.
        case probe
        /// A window item's start bytes.
        case start
        /// A window item's media beyond its start bytes.
        case depth
    }

    /// One fetch.
    public struct Fetch: Sendable, Hashable {
        /// The item's index in the feed.
        public var index: Int
        /// The gear file fetched.
        public var url: URL
        /// The bytes.
        public var range: Range<Int64>
        /// Why.
        public var purpose: Purpose

        /// A fetch from its parts.
        public init(index: Int, url: URL, range: Range<Int64>, purpose: Purpose) {
            self.index = index
            self.url = url
            self.range = range
            self.purpose = purpose
        }
    }

    /// What the rules know of one item at its chosen gear.
    public struct Item: Sendable, Hashable {
        /// The item's index in the feed.
        public var index: Int
        /// The chosen gear.
        public var gear: Gear
        /// The file's length, `nil` before any answer.
        public var length: Int64?
        /// Its start bytes, `nil` while the layout is not known.
        public var start: StartBytes?
        /// The bytes held now.
        public var held: ByteRangeSet

        /// An item from its parts.
        public init(index: Int, gear: Gear, length: Int64?, start: StartBytes?, held: ByteRangeSet) {
            self.index = index
            self.gear = gear
            self.length = length
            self.start = start
            self.held = held
        }

        /// The probe fetched before the layout is known.
        func probe(_ configuration: Configuration) -> Range<Int64> {
            0..<min(length ?? .max, configuration.probeBytes + gear.bytes(for: .seconds(1)))
        }

        /// The first missing range of its start bytes (or probe), the head extended by `lead`;
        /// `nil` when all are held.
        func missingStart(_ configuration: Configuration, lead: Duration = .zero) -> (Range<Int64>, isProbe: Bool)? {
            guard let start else {
                return held.missing(in: probe(configuration)).first.map { ($0, true) }
            }
            var ranges = start.ranges
            let limit = start.tail?.lowerBound ?? length ?? start.head.upperBound
            ranges[0] = 0..<max(start.head.upperBound, min(limit, start.head.upperBound + gear.bytes(for: lead)))
            for range in ranges {
                if let gap = held.missing(in: range).first { return (gap, false) }
            }
            return nil
        }
    }

    /// The playing item's next fetch: its start bytes until held, then its buffer; `nil`
    /// when it needs nothing now. `readPosition` is `nil` until playback started.
    public static func playingFetch(_ item: Item, readPosition: Int64?, configuration: Configuration = Configuration()) -> Fetch? {
        guard let readPosition, let length = item.length else {
            return item.missingStart(configuration).map { Fetch(index: item.index, url: item.gear.url, range: $0.0, purpose: .playingStart) }
        }
        let heldEnd = item.held.heldRunEnd(from: readPosition) ?? readPosition
        guard heldEnd < length, heldEnd - readPosition < item.gear.bytes(for: configuration.playAhead) else { return nil }
        let target = min(length, max(readPosition + item.gear.bytes(for: configuration.playAhead), heldEnd + item.gear.bytes(for: configuration.refill)))
        return item.held.missing(in: heldEnd..<target).first.map { Fetch(index: item.index, url: item.gear.url, range: $0, purpose: .playing) }
    }

    /// Whether preloads may run: the playing item has started and holds its buffer target
    /// ahead of `readPosition`, or is held to its end.
    public static func admitsPreload(_ playing: Item, readPosition: Int64?, configuration: Configuration = Configuration()) -> Bool {
        guard let readPosition, let length = playing.length else { return false }
        let heldEnd = playing.held.heldRunEnd(from: readPosition) ?? readPosition
        return heldEnd >= length || heldEnd - readPosition >= playing.gear.bytes(for: configuration.playAhead)
    }

    /// The next preload among `window` (nearest first, the playing item not in it), or `nil`:
    /// start bytes and their lead first, then `depth` seconds beyond the start bytes while `estimate` (bits per second)
    /// leaves room beside the playing gear of `playingBitRate` bits per second.
    public static func preloadFetch(window: [Item], depth: Duration, estimate: Int64, playingBitRate: Int,
                                    configuration: Configuration = Configuration()) -> Fetch? {
        for item in window {
            if let (range, isProbe) = item.missingStart(configuration, lead: configuration.lead) {
                return Fetch(index: item.index, url: item.gear.url, range: range, purpose: isProbe ? .probe : .start)
            }
        }
        guard depth > .zero, Double(estimate) * configuration.spareFraction > Double(playingBitRate) else { return nil }
        for item in window {
            guard let start = item.start, let length = item.length else { continue }
            let end = min(length, start.head.upperBound + item.gear.bytes(for: depth))
            if let gap = item.held.missing(in: start.head.upperBound..<end).first {
                return Fetch(index: item.index, url: item.gear.url, range: gap, purpose: .depth)
            }
        }
        return nil
    }
}
