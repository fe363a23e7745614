import DouyinSupport
import DouyinVideoCache
import Foundation

/// The adaptive policy's rules, pure: what the playing item needs next, and what a preload
/// may fetch once the playing item is served. No state and no I/O; ``FeedSession`` keeps the
/// state and performs the fetches.
///
/// 1. The playing item first, always: its start bytes, then its buffer kept
///    ``bufferTarget(for:estimate:configuration:)`` ahead of the read position (topped up by at
///    least ``refillDuration(configuration:)`` at a time, up to ``Configuration/playingFetches``
///    in flight). The target is sized from the link as measured, not a constant: the time a
///    top-up takes — the measured time to first byte (its bound, spread included), one
///    position report late, its bytes at a share of the estimate — never under
///    ``Configuration/minAhead`` nor over ``Configuration/playAhead``. What is ahead at a
///    swipe is never played, so it holds no more than that.
/// 2. Nothing else while the playing item holds less than its target ahead (and is not held
///    to its end) — but a window item's start bytes, probe or lead while its fetches on their
///    way cover the target (before playback, its start bytes) and the link would idle
///    waiting for their first bytes, or it takes the link no longer than
///    ``Configuration/negligibleTransfer``
///    (``admitsStartBesideTopUps(_:playing:readPosition:estimate:remaining:configuration:)``).
/// 3. Then the start bytes of each item in the window, nearest first; the nearest's buffer
///    target of media beyond them right after its own (the read position starts at the end of
///    the start bytes, so without it the first top-up's round trip would stall the start).
///    Further items get their start bytes only: they get the rest once they are the nearest.
///    An item whose layout is not known yet gets a probe of its first bytes. These share
///    the link with the playing item's top-ups, whose target is sized for that
///    (``Configuration/linkShare``): they are played whenever the viewer goes on. Up to
///    ``Configuration/preloadFetches`` run at once, more while the link would idle
///    (``preloadHasRoom(count:remaining:estimate:configuration:)``), and a fetch that takes
///    the link no longer than ``Configuration/negligibleTransfer`` beyond those too
///    (``isNegligible(_:estimate:configuration:)``).
/// 4. Optionally (``SessionProfile/Configuration/maxDepth``, off by default), then, only
///    while bandwidth is spare (the estimate times ``Configuration/spareFraction``
///    above the playing gear's bitrate), the profile's depth of each window item, nearest
///    first, capped at the item's buffer target: a preload never holds more ahead than the
///    item would hold while playing. Depth waits until the playing item holds its
///    ``preloadReserve(bytes:estimate:configuration:)`` on top of its target, so it ends
///    before the next top-up and the playing item keeps the link.
///
/// 5. Optionally (``SessionProfile/Configuration/spareReach``, off by default), only while
///    bandwidth is spare in the same sense, the start bytes (or probe) of the
///    items just past the window, nearest first (``spareStartFetch(beyond:estimate:playingBitRate:configuration:)``):
///    the link would idle otherwise, and an item the viewer reaches plays its start bytes
///    however short its view, so what they cost is their bytes should the viewer never get
///    there. The window says what must be held against a run of quick views; this fills the
///    idle time of long ones.
///
/// The gear (``chooseGear(from:estimate:meanWatch:configuration:)``) and the window
/// (``windowSize(profile:playing:ahead:estimate:configuration:)``) come from what the session
/// measured: the estimate, the time to first byte (``Configuration/latency``, set by the
/// session from its meter) and the viewer's own watch times.
public enum AdaptivePlan {
    /// The rules' numbers.
    public struct Configuration: Sendable, Hashable {
        /// The most the playing item's buffer target may be, as media time at its gear: 1.5 s
        /// by default (reached on a slow link only).
        public var playAhead: Duration = .milliseconds(1500)
        /// The least the playing item's buffer target may be: 0.25 s by default.
        public var minAhead: Duration = .milliseconds(250)
        /// The least media a top-up of the playing item fetches: 0.25 s by default (more on a
        /// link whose first byte takes longer: ``refillDuration(configuration:)``).
        public var refill: Duration = .milliseconds(250)
        /// How late a decision may come: the player's position reports, 100 ms apart by default.
        public var reportInterval: Duration = .milliseconds(100)
        /// The time to a response's first byte the rules plan for: 100 ms by default. A
        /// ``FeedSession`` replaces it before each decision with what its meter measured
        /// (``BandwidthEstimator/latencyBound``), so the default only counts before then.
        public var latency: Duration = .milliseconds(100)
        /// The share of the estimate the session's own load may take when a gear is chosen
        /// (``chooseGear(from:estimate:meanWatch:configuration:)``): 0.85 by default. The
        /// rest absorbs the estimate's error and the bursts of quick skips. A ``FeedSession``
        /// lowers it by the throughput's measured spread (``BandwidthEstimator/spread``), to
        /// no less than ``minUtilization``: a jittery link is loaded less than a steady one.
        public var utilization: Double = 0.85
        /// The least share the measured spread may leave ``utilization``: 0.5 by default.
        public var minUtilization: Double = 0.5
        /// How many fetches of the playing item may be in flight at once: 2 by default, so a
        /// top-up's wait for its first byte overlaps the transfer before it (on a link with a
        /// slow first byte, one at a time would idle the link between them).
        public var playingFetches = 2
        /// How many preloads may be in flight at once: 2 by default, for the same reason.
        /// More, up to ``maximumPreloadFetches``, while those in flight leave the link idle
        /// (``preloadHasRoom(count:remaining:estimate:configuration:)``).
        public var preloadFetches = 2
        /// The most preloads in flight on a link whose bandwidth-delay product is larger than
        /// what they still have to fetch: 4 by default; at or under ``preloadFetches``, never
        /// more than that.
        public var maximumPreloadFetches = 4
        /// The share of the estimate a refill is assumed to get (a preload may run beside it):
        /// 0.5 by default.
        public var linkShare: Double = 0.5
        /// Bytes probed before an item's layout is known, on top of 1 s of its media: 32,768.
        public var probeBytes: Int64 = 32 * 1024
        /// The share of the estimate the playing gear may use before depth is fetched: 0.5.
        public var spareFraction: Double = 0.5
        /// How long a window item's probe, start bytes or lead may take the link (its bytes
        /// at the estimate) and still start while the link is busy: 10 ms by default, a tenth
        /// of a position report's lateness, which the buffer target already absorbs. Such a
        /// fetch (a `moov` at the end of a short clip, a lead's last piece) costs the playing
        /// item less than that, while holding it back costs the item its round trip
        /// (``isNegligible(_:estimate:configuration:)``).
        public var negligibleTransfer: Duration = .milliseconds(10)

        /// The defaults.
        public init() {}

        /// These numbers with what `estimator` measured: ``latency`` its
        /// ``BandwidthEstimator/latencyBound`` once a head was timed, ``utilization`` less its
        /// ``BandwidthEstimator/spread`` (not under ``minUtilization``).
        public func measured(by estimator: BandwidthEstimator) -> Configuration {
            var plan = self
            if estimator.latencyCount > 0 { plan.latency = estimator.latencyBound }
            plan.utilization = max(min(minUtilization, utilization), utilization - estimator.spread)
            return plan
        }
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

    /// The share of a link of `estimate` bits per second that playing `gear` takes for a viewer
    /// whose views last `meanWatch` on average: its bitrate, plus what each view leaves ahead
    /// unplayed at its swipe (about its buffer target), plus the link idle for each view's
    /// first request (one ``Configuration/latency`` a view).
    public static func load(of gear: Gear, estimate: Int64, meanWatch: Duration, configuration: Configuration = Configuration()) -> Double {
        let rate = Double(max(1, estimate))
        let pace = max(0.25, meanWatch.inSeconds)
        let ahead = bufferTarget(for: gear, estimate: estimate, configuration: configuration).inSeconds
        return Double(gear.bitRate) * (1 + ahead / pace) / rate + configuration.latency.inSeconds / pace
    }

    /// The highest of `gears` whose ``load(of:estimate:meanWatch:configuration:)`` fits within
    /// ``Configuration/utilization``; the lowest when none fits; `nil` for no gears. The
    /// same link gives a viewer who swipes fast a lower gear than one who watches long, and a
    /// slow first byte costs a gear where it would make every start late.
    public static func chooseGear(from gears: [Gear], estimate: Int64, meanWatch: Duration, configuration: Configuration = Configuration()) -> Gear? {
        let sorted = gears.sorted { $0.bitRate < $1.bitRate }
        let limit = min(1, max(0, configuration.utilization))
        return sorted.last { load(of: $0, estimate: estimate, meanWatch: meanWatch, configuration: configuration) <= limit } ?? sorted.first
    }

    /// How long an item's start bytes at `gear` take to arrive while the playing gear of
    /// `playingBitRate` bits per second plays: one ``Configuration/latency`` plus its probe
    /// (``Configuration/probeBytes`` and 1 s of media) at what the estimate leaves beside the
    /// playing gear (at least a tenth of it). The session's window is sized from it.
    public static func startFetchTime(for gear: Gear, estimate: Int64, playingBitRate: Int, configuration: Configuration = Configuration()) -> Duration {
        let rate = Double(max(1, estimate))
        let spare = max(rate / 10, rate - Double(max(0, playingBitRate)))
        let bytes = configuration.probeBytes + gear.bytes(for: .seconds(1))
        return configuration.latency + .clampedSeconds(Double(bytes) * 8 / spare)
    }

    /// How many items ahead of the playing one the window holds for `profile`
    /// (``SessionProfile/window(fetchTime:)``): the time one more start takes is that of the
    /// items ahead at their own gear — the highest of `ahead` (the next item's gear as decided,
    /// the one an item joining the window would be given now) — beside the playing gear,
    /// `playing` (``startFetchTime(for:estimate:playingBitRate:configuration:)``); the playing
    /// gear's own when `ahead` is empty. Items ahead may play a higher gear than the playing
    /// one (chosen on a pace learnt since): sized from the playing gear's start bytes, a
    /// window on a slow first byte was an item or two short, and a run of quick views into
    /// such items found their start bytes not yet asked for.
    public static func windowSize(profile: SessionProfile, playing: Gear, ahead: [Gear], estimate: Int64,
                                  configuration: Configuration = Configuration()) -> Int {
        let gear = ahead.max { $0.bitRate < $1.bitRate } ?? playing
        return profile.window(fetchTime: startFetchTime(for: gear, estimate: estimate, playingBitRate: playing.bitRate, configuration: configuration))
    }

    /// The media a top-up fetches: ``Configuration/refill``, or the time to first byte when
    /// that is longer — with two in flight, each must carry at least the other's wait for
    /// its first byte, or the link idles between them.
    public static func refillDuration(configuration: Configuration = Configuration()) -> Duration {
        max(configuration.refill, configuration.latency)
    }

    /// The playing item's buffer target at `gear` on a link estimated at `estimate` bits per
    /// second: the time a top-up takes — ``Configuration/latency`` (the measured bound),
    /// ``Configuration/reportInterval`` (a decision one report late) and
    /// ``refillDuration(configuration:)``'s bytes at ``Configuration/linkShare`` of the
    /// estimate — within ``Configuration/minAhead``...``Configuration/playAhead``.
    public static func bufferTarget(for gear: Gear, estimate: Int64, configuration: Configuration = Configuration()) -> Duration {
        let rate = max(1, Double(max(0, estimate)) * min(1, max(0.01, configuration.linkShare)))
        let refillSeconds = Double(gear.bytes(for: refillDuration(configuration: configuration))) * 8 / rate
        let needed = Duration.clampedSeconds(configuration.latency.inSeconds + configuration.reportInterval.inSeconds + refillSeconds)
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
        let target = min(length, max(readPosition + ahead, heldEnd + item.gear.bytes(for: refillDuration(configuration: configuration))))
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

    /// The reserve `fetch` needs before it may start: ``preloadReserve(bytes:estimate:configuration:)``
    /// for depth, nothing for a window item's start bytes, probe or lead. Those are played
    /// whenever the viewer goes on, while what the playing item holds beyond its target is lost
    /// at the swipe; they share the link with its top-ups, which the buffer target already
    /// sizes at ``Configuration/linkShare`` of the estimate.
    public static func reserve(for fetch: Fetch, estimate: Int64, configuration: Configuration = Configuration()) -> Duration {
        guard fetch.purpose == .depth else { return .zero }
        return preloadReserve(bytes: Int64(fetch.range.count), estimate: estimate, configuration: configuration)
    }

    /// Whether a preload may start beside `count` in flight that still have `remaining` bytes
    /// to come: always under ``Configuration/preloadFetches``; beyond, up to
    /// ``Configuration/maximumPreloadFetches``, only while `remaining` is under the link's
    /// bandwidth-delay product (`estimate` bits per second over one
    /// ``Configuration/latency``). Those bytes arrive before a new request's first byte would,
    /// so the link would idle while it waits: on a slow first byte, short fetches (a probe,
    /// a `moov` tail) are bound by the wait, not by the bytes, and a fixed number of them in
    /// flight cannot keep up with a run of quick views.
    public static func preloadHasRoom(count: Int, remaining: Int64, estimate: Int64, configuration: Configuration = Configuration()) -> Bool {
        if count < max(1, configuration.preloadFetches) { return true }
        guard count < configuration.maximumPreloadFetches else { return false }
        return Double(max(0, remaining)) < bandwidthDelayBytes(estimate: estimate, configuration: configuration)
    }

    /// Whether `fetch`, a window item's probe, start bytes or lead, may start before the
    /// playing item holds its buffer target: the playing item's fetches on their way cover
    /// what it needs now (`planned` counts them as held) — its buffer target once playing,
    /// its start bytes before (`readPosition` is `nil` until playback started) — and every
    /// fetch in flight has fewer bytes still to come (`remaining`) than the link's
    /// bandwidth-delay product (`estimate` bits per second over one
    /// ``Configuration/latency``). Those fetches then end within one time to first byte, so
    /// the new request's bytes come after theirs and the link would idle through its wait
    /// otherwise. On a link whose first byte is slow, a top-up holds the playing item under
    /// its target for one time to first byte after another, and a run of views shorter than
    /// that would otherwise never let a start byte through; before playback, a view shorter
    /// than the playing item's start plus two round trips (a probe, then a `moov` at the end)
    /// would find the next item not started. The playing item's target is sized for sharing
    /// the link (``Configuration/linkShare``); depth never starts this way (it waits for the
    /// playing item to hold its reserve).
    public static func admitsStartBesideTopUps(_ fetch: Fetch, playing planned: Item, readPosition: Int64?, estimate: Int64,
                                               remaining: Int64, configuration: Configuration = Configuration()) -> Bool {
        guard fetch.purpose == .probe || fetch.purpose == .start || fetch.purpose == .lead else { return false }
        let covered = readPosition == nil
            ? planned.missingStart(configuration) == nil
            : admitsPreload(planned, readPosition: readPosition, estimate: estimate, configuration: configuration)
        return covered && (Double(max(0, remaining)) < bandwidthDelayBytes(estimate: estimate, configuration: configuration)
            || isNegligible(fetch, estimate: estimate, configuration: configuration))
    }

    /// Whether `fetch`, a preload's probe, start bytes or lead (a window item's, or with
    /// ``SessionProfile/Configuration/spareReach`` one just past it), takes the link (`estimate`
    /// bits per second) no longer than ``Configuration/negligibleTransfer``: it may start
    /// while the link is busy, beside top-ups and beyond ``Configuration/preloadFetches`` (not
    /// beyond ``Configuration/maximumPreloadFetches``). On a link whose first byte is slow, a
    /// `moov` of a few kilobytes held back behind a probe's transfer made the next item wait
    /// one more round trip when the viewer got there.
    public static func isNegligible(_ fetch: Fetch, estimate: Int64, configuration: Configuration = Configuration()) -> Bool {
        guard fetch.purpose == .probe || fetch.purpose == .start || fetch.purpose == .lead else { return false }
        return Double(fetch.range.count) * 8 / Double(max(1, estimate)) <= configuration.negligibleTransfer.inSeconds
    }

    /// The bytes a link of `estimate` bits per second carries in one ``Configuration/latency``.
    private static func bandwidthDelayBytes(estimate: Int64, configuration: Configuration) -> Double {
        Double(max(0, estimate)) / 8 * configuration.latency.inSeconds
    }

    /// The start bytes (or probe) of the first item in `beyond` (the items just past the
    /// window, nearest first) that lacks them, while `estimate` (bits per second) times
    /// ``Configuration/spareFraction`` exceeds the playing gear's `playingBitRate`; else `nil`.
    /// Start bytes only: media beyond them waits until the item is in the window.
    public static func spareStartFetch(beyond: [Item], estimate: Int64, playingBitRate: Int,
                                       configuration: Configuration = Configuration()) -> Fetch? {
        guard Double(estimate) * configuration.spareFraction > Double(playingBitRate) else { return nil }
        for item in beyond {
            if let (range, isProbe) = item.missingStart(configuration) {
                return Fetch(index: item.index, url: item.gear.url, range: range, purpose: isProbe ? .probe : .start)
            }
        }
        return nil
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
