import DouyinSupport
import DouyinVideoCache
import Foundation

/// The adaptive policy's rules, pure: what the playing item needs next, and what a preload
/// may fetch once the playing item is served. No state and no I/O; ``FeedSession`` keeps the
/// state and performs the fetches.
///
/// 1. The playing item first, always: its start bytes, then its buffer kept
///    ``bufferTarget(for:estimate:configuration:)`` ahead of the read position (topped up by at
///    least ``Configuration/refill`` at a time). The target is sized from the link, not a
///    constant: a margin over the time a refill takes (time to first byte plus the refill at a
///    share of the estimate), never under ``Configuration/minAhead`` nor over
///    ``Configuration/playAhead``. What is ahead at a swipe is never played, so a fast link
///    holds little.
/// 2. Nothing else while the playing item holds less than its target ahead (and is not held
///    to its end).
/// 3. Then the start bytes of each item in the window, nearest first; the nearest's buffer
///    target of media beyond them right after its own (the read position starts at the end of
///    the start bytes, so without it the first top-up's round trip would stall the start).
///    Further items get their start bytes only: they get the rest once they are the nearest.
///    An item whose layout is not known yet gets a probe of its first bytes.
///    Each preload but the nearest item's start bytes waits until the playing item holds its
///    ``preloadReserve(bytes:estimate:configuration:)`` on top of its target, so it ends before
///    the next refill and the playing item keeps the link to itself.
/// 4. Then, only while bandwidth is spare (the estimate times ``Configuration/spareFraction``
///    above the playing gear's bitrate), the profile's depth of each window item, nearest
///    first, capped at the item's buffer target: a preload never holds more ahead than the
///    item would hold while playing.
public enum AdaptivePlan {
    /// The rules' numbers.
    public struct Configuration: Sendable, Hashable {
        /// The most the playing item's buffer target may be, as media time at its gear: 1.5 s
        /// by default (reached on a slow link only).
        public var playAhead: Duration = .milliseconds(1500)
        /// The least the playing item's buffer target may be: 0.5 s by default (five of the
        /// player's 100 ms position reports, several refill round trips on loopback).
        public var minAhead: Duration = .milliseconds(500)
        /// The least media a top-up of the playing item fetches: 0.25 s by default.
        public var refill: Duration = .milliseconds(250)
        /// The time to first byte assumed for a request: 100 ms by default.
        public var latency: Duration = .milliseconds(100)
        /// The share of the estimate a refill is assumed to get (a preload may run beside it):
        /// 0.5 by default.
        public var linkShare: Double = 0.5
        /// How many refill times the buffer target covers: 1.5 by default.
        public var margin: Double = 1.5
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
        /// The nearest window item's buffer beyond its start bytes.
        case lead
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

    /// The playing item's buffer target at `gear` on a link estimated at `estimate` bits per
    /// second: ``Configuration/margin`` times (``Configuration/latency`` plus the time a
    /// ``Configuration/refill`` takes at ``Configuration/linkShare`` of the estimate), within
    /// ``Configuration/minAhead``...``Configuration/playAhead``.
    public static func bufferTarget(for gear: Gear, estimate: Int64, configuration: Configuration = Configuration()) -> Duration {
        let rate = max(1, Double(max(0, estimate)) * min(1, max(0.01, configuration.linkShare)))
        let refillSeconds = Double(gear.bytes(for: configuration.refill)) * 8 / rate
        let needed = Duration.clampedSeconds(max(0, configuration.margin) * (configuration.latency.inSeconds + refillSeconds))
        let ceiling = max(configuration.minAhead, configuration.playAhead)
        return min(ceiling, max(configuration.minAhead, needed))
    }

    /// The playing item's next fetch: its start bytes until held, then its buffer (its
    /// ``bufferTarget(for:estimate:configuration:)`` on a link of `estimate` bits per second);
    /// `nil` when it needs nothing now. `readPosition` is `nil` until playback started.
    public static func playingFetch(_ item: Item, readPosition: Int64?, estimate: Int64, reserve: Duration = .zero,
                                    configuration: Configuration = Configuration()) -> Fetch? {
        guard let readPosition, let length = item.length else {
            return item.missingStart(configuration).map { Fetch(index: item.index, url: item.gear.url, range: $0.0, purpose: .playingStart) }
        }
        let ahead = item.gear.bytes(for: bufferTarget(for: item.gear, estimate: estimate, configuration: configuration) + reserve)
        let heldEnd = item.held.heldRunEnd(from: readPosition) ?? readPosition
        guard heldEnd < length, heldEnd - readPosition < ahead else { return nil }
        let target = min(length, max(readPosition + ahead, heldEnd + item.gear.bytes(for: configuration.refill)))
        return item.held.missing(in: heldEnd..<target).first.map { Fetch(index: item.index, url: item.gear.url, range: $0, purpose: .playing) }
    }

    /// Whether preloads may run: the playing item has started and holds its buffer target
    /// (on a link of `estimate` bits per second) ahead of `readPosition`, or is held to its end.
    public static func admitsPreload(_ playing: Item, readPosition: Int64?, estimate: Int64, reserve: Duration = .zero,
                                     configuration: Configuration = Configuration()) -> Bool {
        guard let readPosition, let length = playing.length else { return false }
        let heldEnd = playing.held.heldRunEnd(from: readPosition) ?? readPosition
        let ahead = playing.gear.bytes(for: bufferTarget(for: playing.gear, estimate: estimate, configuration: configuration) + reserve)
        return heldEnd >= length || heldEnd - readPosition >= ahead
    }

    /// What a preload of `bytes` costs the playing item in media time: the wait for its first
    /// byte plus its bytes at the whole estimate (`estimate` bits per second). Held ahead on
    /// top of the buffer target before it starts, it lets the preload end before the playing
    /// item needs its next refill, so the two do not share the link.
    public static func preloadReserve(bytes: Int64, estimate: Int64, configuration: Configuration = Configuration()) -> Duration {
        configuration.latency + .clampedSeconds(Double(max(0, bytes)) * 8 / Double(max(1, estimate)))
    }

    /// The reserve `fetch` needs before it may start (``preloadReserve(bytes:estimate:configuration:)``),
    /// except for the start bytes (or probe) of `nearest`, the window's nearest item: readiness
    /// first, so those start at the bare buffer target and may share the link with a refill.
    public static func reserve(for fetch: Fetch, nearest: Int?, estimate: Int64, configuration: Configuration = Configuration()) -> Duration {
        if fetch.index == nearest, fetch.purpose == .start || fetch.purpose == .probe { return .zero }
        return preloadReserve(bytes: Int64(fetch.range.count), estimate: estimate, configuration: configuration)
    }

    /// The next preload among `window` (nearest first, the playing item not in it), or `nil`:
    /// start bytes first (the nearest item's with its buffer target beyond them), then up to
    /// `depth` seconds beyond the start bytes, capped at each item's buffer target, while
    /// `estimate` (bits per second) leaves room beside the playing gear of `playingBitRate`
    /// bits per second.
    public static func preloadFetch(window: [Item], depth: Duration, estimate: Int64, playingBitRate: Int,
                                    configuration: Configuration = Configuration()) -> Fetch? {
        // The nearest item's start bytes, then its buffer beyond them, then the others' start bytes.
        if let nearest = window.first {
            if let (range, isProbe) = nearest.missingStart(configuration) {
                return Fetch(index: nearest.index, url: nearest.gear.url, range: range, purpose: isProbe ? .probe : .start)
            }
            let lead = bufferTarget(for: nearest.gear, estimate: estimate, configuration: configuration)
            if let (range, _) = nearest.missingStart(configuration, lead: lead) {
                return Fetch(index: nearest.index, url: nearest.gear.url, range: range, purpose: .lead)
            }
        }
        for item in window.dropFirst() {
            if let (range, isProbe) = item.missingStart(configuration) {
                return Fetch(index: item.index, url: item.gear.url, range: range, purpose: isProbe ? .probe : .start)
            }
        }
        guard depth > .zero, Double(estimate) * configuration.spareFraction > Double(playingBitRate) else { return nil }
        for item in window {
            guard let start = item.start, let length = item.length else { continue }
            let seconds = min(depth, bufferTarget(for: item.gear, estimate: estimate, configuration: configuration))
            let end = min(length, start.head.upperBound + item.gear.bytes(for: seconds))
            if let gap = item.held.missing(in: start.head.upperBound..<end).first {
                return Fetch(index: item.index, url: item.gear.url, range: gap, purpose: .depth)
            }
        }
        return nil
    }
}
