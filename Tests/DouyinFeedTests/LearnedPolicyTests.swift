import DouyinFeed
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// The adaptive policy's rules that learn from the session (issue 38): the link's time to
/// first byte and its drops, the viewer's quick views, and the gear, window and buffer they
/// set. Pure values, injected times: no clock runs.
@Suite struct LearnedPolicyTests {
    static let gears = [600_000, 1_200_000, 2_400_000].map { Gear(url: URL(string: "http://o.test/\($0).mp4")!, bitRate: $0) }

    /// `count` samples of a link of `rate` bits per second: transfers of 64 KiB, each with
    /// `latency` before its first byte, back to back from `start`; returns the time reached.
    @discardableResult
    static func feed(_ estimator: inout BandwidthEstimator, rate: Double, transfers: Int, from start: Duration = .zero,
                     latency: Duration = .milliseconds(40)) -> Duration {
        MeterTests.feed(&estimator, rate: rate, transfers: transfers, bytes: 64 * 1024, latency: latency, from: start)
    }

    @Test func theTimeToFirstByteIsLearnedWithItsSpread() {
        var estimator = BandwidthEstimator()
        #expect(estimator.latencyBound == .milliseconds(100), "the configured prior before any head")
        for _ in 0..<20 { estimator.responseTimed(.milliseconds(200)) }
        let steady = estimator.latencyBound
        #expect(estimator.latency > .milliseconds(199) && estimator.latency < .milliseconds(201))
        #expect(steady >= estimator.latency && steady < .milliseconds(210), "\(steady)")
        // A link whose first bytes come at 100 or 300 ms plans for more than their mean.
        var jittery = BandwidthEstimator()
        for n in 0..<20 { jittery.responseTimed(.milliseconds(n % 2 == 0 ? 100 : 300)) }
        #expect(jittery.latencyBound > .milliseconds(400), "\(jittery.latencyBound)")
    }

    /// Regression for the 200 ms cells of the bench: an open transfer waiting for its first
    /// byte while another has ended is no bandwidth; counted, it read a 4 Mbit/s link as 1.2.
    @Test func aTransferWaitingForItsFirstByteIsNotCountedAfterAnotherEnds() {
        var estimator = BandwidthEstimator()
        var now = Duration.zero
        let chunk: Int64 = 16 * 1024
        let perChunk = Duration.nanoseconds(Int64(Double(chunk) * 8 / 4_000_000 * 1e9))
        for _ in 0..<12 {
            // A flows, B is asked for meanwhile and waits 200 ms after A ends.
            estimator.transferStarted(at: now)
            for _ in 0..<8 {
                now += perChunk
                estimator.bytesReceived(chunk, at: now)
            }
            estimator.transferStarted(at: now)
            estimator.transferEnded(at: now)
            now += .milliseconds(200)
            for _ in 0..<8 {
                now += perChunk
                estimator.bytesReceived(chunk, at: now)
            }
            estimator.transferEnded(at: now)
        }
        #expect(abs(Double(estimator.estimate) - 4_000_000) / 4_000_000 < 0.05, "estimate \(estimator.estimate)")
    }

    /// A drop is believed within three samples; the median alone would still answer the
    /// old rate (the rule fails if the fast mean's cap is taken away).
    @Test func anEstimateFollowsADropAtOnce() {
        var estimator = BandwidthEstimator()
        var medianOnly = BandwidthEstimator(configuration: { var c = BandwidthEstimator.Configuration(); c.recentWeight = 0; return c }())
        let now = Self.feed(&estimator, rate: 8_000_000, transfers: 24)
        Self.feed(&medianOnly, rate: 8_000_000, transfers: 24)
        Self.feed(&estimator, rate: 1_500_000, transfers: 3, from: now)
        Self.feed(&medianOnly, rate: 1_500_000, transfers: 3, from: now)
        #expect(Double(estimator.estimate) < 2_500_000, "estimate \(estimator.estimate)")
        #expect(Double(medianOnly.estimate) > 6_000_000, "the median alone: \(medianOnly.estimate)")
    }

    /// Noise is not a drop: samples spread ±20 % around 4 Mbit/s leave the estimate at the
    /// median nearly always. The fast mean caps it only after two samples in a row at or below
    /// the window's lower quartile; as the lower of the two, always, it read such a link low
    /// about half the time.
    @Test func noiseInsideTheQuartilesDoesNotPullTheEstimateDown() {
        var estimator = BandwidthEstimator()
        var random = SeededRandom(seed: 38)
        var now = Duration.zero
        var low = 0, estimates = 0
        for n in 0..<200 {
            let rate = 4_000_000 * (0.8 + 0.4 * Double(random.next() % 1001) / 1000)
            now = Self.feed(&estimator, rate: rate, transfers: 1, from: now)
            guard n >= 40 else { continue }
            estimates += 1
            if Double(estimator.estimate) < 3_900_000 { low += 1 }
        }
        #expect(Double(low) / Double(estimates) < 0.15, "\(low) of \(estimates) estimates under 3.9 Mbit/s")
    }

    /// A steady link is loaded more than a jittery one of the same mean: the plan's
    /// utilization is lowered by the throughput's measured spread, and its latency is the
    /// measured bound.
    @Test func aJitteryLinkIsLoadedLess() {
        var steady = BandwidthEstimator()
        var jittery = BandwidthEstimator()
        var now = Duration.zero, then = Duration.zero
        for n in 0..<24 {
            now = Self.feed(&steady, rate: 4_000_000, transfers: 1, from: now)
            then = Self.feed(&jittery, rate: n % 2 == 0 ? 2_000_000 : 6_000_000, transfers: 1, from: then)
        }
        for _ in 0..<8 { jittery.responseTimed(.milliseconds(200)) }
        #expect(steady.spread < 0.05, "\(steady.spread)")
        #expect(jittery.spread > 0.3, "\(jittery.spread)")
        let base = AdaptivePlan.Configuration()
        let calm = base.measured(by: steady), rough = base.measured(by: jittery)
        #expect(calm.utilization > rough.utilization)
        #expect(rough.utilization >= base.minUtilization)
        #expect(calm.latency == base.latency, "no head timed: the prior")
        #expect(rough.latency == jittery.latencyBound)
        let gears = Self.gears
        let onCalm = AdaptivePlan.chooseGear(from: gears, estimate: 4_000_000, meanWatch: .seconds(3), configuration: calm)
        let onRough = AdaptivePlan.chooseGear(from: gears, estimate: 4_000_000, meanWatch: .seconds(3), configuration: rough)
        #expect((onRough?.bitRate ?? .max) < (onCalm?.bitRate ?? 0))
    }

    /// The buffer target is the time a top-up takes on the link as measured: a slower first
    /// byte asks for more ahead, and a top-up carries at least one first byte's wait of media.
    @Test func theBufferTargetAndRefillFollowTheMeasuredFirstByte() {
        let top = Self.gears[2]
        var fast = AdaptivePlan.Configuration()
        fast.latency = .milliseconds(40)
        var slow = AdaptivePlan.Configuration()
        slow.latency = .milliseconds(400)
        // 40 ms + 100 ms + 75,000 bytes at 4 Mbit/s (0.15 s) = 0.29 s.
        let target = AdaptivePlan.bufferTarget(for: top, estimate: 8_000_000, configuration: fast)
        #expect(target > .milliseconds(289) && target < .milliseconds(291), "\(target)")
        #expect(AdaptivePlan.bufferTarget(for: top, estimate: 8_000_000, configuration: slow) > target + .milliseconds(359))
        #expect(AdaptivePlan.refillDuration(configuration: fast) == .milliseconds(250))
        #expect(AdaptivePlan.refillDuration(configuration: slow) == .milliseconds(400))
    }

    /// The gear is the highest whose load fits the utilization; a viewer who swipes fast loads
    /// the link with more unplayed buffer and gets a lower gear on the same link, and a slow
    /// first byte costs a gear where it would make every start late.
    @Test func theGearFollowsTheLinkAndTheViewersPace() throws {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(40)
        let chosen = try #require(AdaptivePlan.chooseGear(from: Self.gears, estimate: 4_000_000, meanWatch: .seconds(3), configuration: plan))
        #expect(chosen.bitRate == 2_400_000)
        // The rule itself: the chosen gear fits, the next one up does not.
        for (index, gear) in Self.gears.enumerated() {
            let load = AdaptivePlan.load(of: gear, estimate: 2_000_000, meanWatch: .seconds(3), configuration: plan)
            let picked = AdaptivePlan.chooseGear(from: Self.gears, estimate: 2_000_000, meanWatch: .seconds(3), configuration: plan)
            if gear == picked { #expect(load <= plan.utilization) }
            if let picked, let at = Self.gears.firstIndex(of: picked), index > at { #expect(load > plan.utilization) }
        }
        let skipper = AdaptivePlan.chooseGear(from: Self.gears, estimate: 4_000_000, meanWatch: .milliseconds(400), configuration: plan)
        #expect((skipper?.bitRate ?? .max) < chosen.bitRate)
        plan.latency = .milliseconds(300)
        let far = AdaptivePlan.chooseGear(from: Self.gears, estimate: 4_000_000, meanWatch: .seconds(3), configuration: plan)
        #expect((far?.bitRate ?? .max) < chosen.bitRate)
        // Nothing fits a starved link: the lowest, never none.
        #expect(AdaptivePlan.chooseGear(from: Self.gears, estimate: 1, meanWatch: .seconds(3), configuration: plan)?.bitRate == 600_000)
    }

    /// The window holds enough items that a run of views each quicker than an item's fetch,
    /// outlasting it, is rarer than the tolerance — and no more.
    @Test func theWindowCoversRunsOfQuickViews() {
        var skipper = SessionProfile()
        var watcher = SessionProfile()
        for n in 0..<16 {
            skipper.viewed(.milliseconds(n % 2 == 0 ? 300 : 4000))
            watcher.viewed(.seconds(6))
        }
        let fetch = Duration.milliseconds(500)
        #expect(skipper.shareShorter(than: fetch) > 0.4)
        #expect(watcher.shareShorter(than: fetch) < 0.05)
        let window = skipper.window(fetchTime: fetch)
        let odds = skipper.shareShorter(than: fetch)
        let tolerance = skipper.configuration.tolerance
        #expect(pow(odds, Double(window)) <= tolerance || window == skipper.configuration.windowRange.upperBound)
        #expect(pow(odds, Double(window - 1)) > tolerance)
        #expect(watcher.window(fetchTime: fetch) < window)
        // A link that takes longer to fetch a start needs more ready for the same viewer.
        #expect(watcher.window(fetchTime: .seconds(8)) > watcher.window(fetchTime: fetch))
    }

    /// The window is sized from the start bytes of the items it holds, at their own gear:
    /// a viewer on the lowest gear whose next items play the top one needs the top gear's
    /// start fetched ahead, not the lowest's (the session of 4 Mbit/s, 200 ms to each first
    /// byte, missed the starts of a run of quick views into top-gear items this way).
    @Test func theWindowIsSizedFromTheGearOfTheItemsAhead() {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        var profile = SessionProfile()
        for watch in [680, 5760] { profile.viewed(.milliseconds(watch)) }
        let low = Self.gears[0], top = Self.gears[2]
        let same = AdaptivePlan.windowSize(profile: profile, playing: low, ahead: [low], estimate: 4_000_000, configuration: plan)
        let higher = AdaptivePlan.windowSize(profile: profile, playing: low, ahead: [top], estimate: 4_000_000, configuration: plan)
        #expect(higher > same)
        // The rule is the profile's window for the fetch time of the items ahead beside the playing gear.
        let fetch = AdaptivePlan.startFetchTime(for: top, estimate: 4_000_000, playingBitRate: low.bitRate, configuration: plan)
        #expect(higher == profile.window(fetchTime: fetch))
        // The highest gear ahead counts, whichever comes first: the next item decided low
        // while an item joining now would play the top gear, or the other way round.
        #expect(AdaptivePlan.windowSize(profile: profile, playing: low, ahead: [low, top], estimate: 4_000_000, configuration: plan) == higher)
        #expect(AdaptivePlan.windowSize(profile: profile, playing: low, ahead: [top, low], estimate: 4_000_000, configuration: plan) == higher)
        // Nothing ahead known: the playing gear's own start.
        #expect(AdaptivePlan.windowSize(profile: profile, playing: low, ahead: [], estimate: 4_000_000, configuration: plan) == same)
        // Playing the top gear leaves less of the link for the same starts: no smaller a window.
        #expect(AdaptivePlan.windowSize(profile: profile, playing: top, ahead: [top], estimate: 4_000_000, configuration: plan) >= higher)
    }

    /// With a top-up in flight counted as held, the next one is planned beyond it, so two can
    /// overlap; the read position's own bytes are never asked twice.
    @Test func theNextTopUpIsPlannedPastTheOneInFlight() throws {
        let gear = Self.gears[2]
        let start = StartBytes(head: 0..<310_000, tail: nil)
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        var item = AdaptivePlan.Item(index: 0, gear: gear, length: 1_800_000, start: start, held: ByteRangeSet([0..<320_000]))
        let first = try #require(AdaptivePlan.playingFetch(item, readPosition: 310_000, estimate: 4_000_000, configuration: plan))
        #expect(first.range.lowerBound == 320_000)
        item.held.insert(first.range)
        if let second = AdaptivePlan.playingFetch(item, readPosition: 310_000, estimate: 4_000_000, configuration: plan) {
            #expect(second.range.lowerBound >= first.range.upperBound)
        }
    }

    /// Start bytes, probes and leads share the link with the playing item's top-ups (they are
    /// played whenever the viewer goes on); depth waits for the playing item to cover it.
    @Test func onlyDepthWaitsForAReserve() {
        let url = URL(string: "http://o.test/1.mp4")!
        for purpose in [AdaptivePlan.Purpose.start, .probe, .lead] {
            let fetch = AdaptivePlan.Fetch(index: 2, url: url, range: 0..<300_000, purpose: purpose)
            #expect(AdaptivePlan.reserve(for: fetch, estimate: 8_000_000) == .zero)
        }
        let depth = AdaptivePlan.Fetch(index: 2, url: url, range: 0..<300_000, purpose: .depth)
        #expect(AdaptivePlan.reserve(for: depth, estimate: 8_000_000) == AdaptivePlan.preloadReserve(bytes: 300_000, estimate: 8_000_000))
    }

    /// A window item's probe, start bytes or lead may start before the playing item holds its
    /// target only while its top-ups on their way cover the target and everything in flight
    /// has less to come than the link's bandwidth-delay product (4 Mbit/s over 200 ms: 100 KB).
    @Test func startBytesGoBesideTopUpsOnlyWhileTheLinkWaits() {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        let estimate: Int64 = 4_000_000
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 1_200_000)
        let target = gear.bytes(for: AdaptivePlan.bufferTarget(for: gear, estimate: estimate, configuration: plan))
        let start = StartBytes(head: 0..<160_000, tail: nil)
        // Held and on their way: up to the target; held alone: short of it.
        let planned = AdaptivePlan.Item(index: 0, gear: gear, length: 1_500_000, start: start, held: ByteRangeSet([0..<(160_000 + target)]))
        let short = AdaptivePlan.Item(index: 0, gear: gear, length: 1_500_000, start: start, held: ByteRangeSet([0..<(160_000 + target - 1)]))
        let url = URL(string: "http://o.test/1.mp4")!
        func fetch(_ purpose: AdaptivePlan.Purpose) -> AdaptivePlan.Fetch { AdaptivePlan.Fetch(index: 1, url: url, range: 0..<180_000, purpose: purpose) }
        for purpose in [AdaptivePlan.Purpose.probe, .start, .lead] {
            #expect(AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: planned, readPosition: 160_000, estimate: estimate,
                                                         remaining: 99_000, configuration: plan), "\(purpose)")
            #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: planned, readPosition: 160_000, estimate: estimate,
                                                          remaining: 101_000, configuration: plan), "\(purpose): the link is busy")
            #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: short, readPosition: 160_000, estimate: estimate,
                                                          remaining: 0, configuration: plan), "\(purpose): the top-ups fall short of the target")
        }
        for purpose in [AdaptivePlan.Purpose.depth, .playing, .playingStart] {
            #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: planned, readPosition: 160_000, estimate: estimate,
                                                          remaining: 0, configuration: plan), "\(purpose) never")
        }
        // A faster first byte leaves less to wait through: at 40 ms, 20 KB.
        plan.latency = .milliseconds(40)
        #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(.probe), playing: planned, readPosition: 160_000, estimate: estimate,
                                                      remaining: 21_000, configuration: plan))
        // Values at Int64's edges do not trap.
        #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(.probe), playing: planned, readPosition: 160_000, estimate: .min,
                                                      remaining: .max, configuration: plan))
        // (On a link of Int64.max bits per second any fetch is negligible, however busy.)
        #expect(AdaptivePlan.admitsStartBesideTopUps(fetch(.probe), playing: planned, readPosition: .max, estimate: .max,
                                                     remaining: .max, configuration: plan))
    }

    /// Before playback, a window item's probe, start bytes or lead may go beside the playing
    /// item's start only once every start byte it needs is on its way and the link would idle
    /// (the first view of a session on a 200 ms link lasting under the start plus a probe
    /// and a `moov` round trip otherwise finds the next item not started).
    @Test func beforePlaybackStartBytesGoBesideOnlyOnceThePlayingStartIsOnItsWay() {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        let estimate: Int64 = 4_000_000
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 1_200_000)
        let start = StartBytes(head: 0..<160_000, tail: 1_400_000..<1_500_000)
        func playing(_ held: [Range<Int64>], start: StartBytes? = start) -> AdaptivePlan.Item {
            AdaptivePlan.Item(index: 0, gear: gear, length: start == nil ? nil : 1_500_000, start: start, held: ByteRangeSet(held))
        }
        let url = URL(string: "http://o.test/1.mp4")!
        func fetch(_ purpose: AdaptivePlan.Purpose) -> AdaptivePlan.Fetch { AdaptivePlan.Fetch(index: 1, url: url, range: 0..<180_000, purpose: purpose) }
        let whole = playing([0..<160_000, 1_400_000..<1_500_000])
        let probing = playing([0..<plan.probeBytes + gear.bytes(for: .seconds(1))], start: nil)
        for purpose in [AdaptivePlan.Purpose.probe, .start, .lead] {
            for item in [whole, probing] {
                #expect(AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: item, readPosition: nil, estimate: estimate,
                                                             remaining: 99_000, configuration: plan), "\(purpose)")
                #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: item, readPosition: nil, estimate: estimate,
                                                              remaining: 101_000, configuration: plan), "\(purpose): the link is busy")
            }
            for item in [playing([0..<160_000]), playing([1_400_000..<1_500_000]), playing([0..<159_999, 1_400_000..<1_500_000]),
                         playing([0..<1000], start: nil)] {
                #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(purpose), playing: item, readPosition: nil, estimate: estimate,
                                                              remaining: 0, configuration: plan), "\(purpose): a start byte not asked for")
            }
        }
        #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(.depth), playing: whole, readPosition: nil, estimate: estimate,
                                                      remaining: 0, configuration: plan), "depth never")
    }

    /// A window item's fetch that takes the link no longer than ``negligibleTransfer`` (10 ms:
    /// 5,000 bytes at 4 Mbit/s) starts while the link is busy; a byte more, or depth, waits.
    @Test func aFetchOfNegligibleBytesStartsWhileTheLinkIsBusy() {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        let estimate: Int64 = 4_000_000
        let url = URL(string: "http://o.test/1.mp4")!
        func fetch(_ purpose: AdaptivePlan.Purpose, _ bytes: Int64) -> AdaptivePlan.Fetch {
            AdaptivePlan.Fetch(index: 1, url: url, range: 900_000..<(900_000 + bytes), purpose: purpose)
        }
        for purpose in [AdaptivePlan.Purpose.probe, .start, .lead] {
            #expect(AdaptivePlan.isNegligible(fetch(purpose, 5_000), estimate: estimate, configuration: plan), "\(purpose)")
            #expect(!AdaptivePlan.isNegligible(fetch(purpose, 5_001), estimate: estimate, configuration: plan), "\(purpose)")
        }
        for purpose in [AdaptivePlan.Purpose.depth, .playing, .playingStart] {
            #expect(!AdaptivePlan.isNegligible(fetch(purpose, 1), estimate: estimate, configuration: plan), "\(purpose) never")
        }
        // Beside top-ups with the link busy (remaining far over the bandwidth-delay product).
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 1_200_000)
        let start = StartBytes(head: 0..<160_000, tail: nil)
        let target = gear.bytes(for: AdaptivePlan.bufferTarget(for: gear, estimate: estimate, configuration: plan))
        let planned = AdaptivePlan.Item(index: 0, gear: gear, length: 1_500_000, start: start, held: ByteRangeSet([0..<(160_000 + target)]))
        let short = AdaptivePlan.Item(index: 0, gear: gear, length: 1_500_000, start: start, held: ByteRangeSet([0..<(160_000 + target - 1)]))
        #expect(AdaptivePlan.admitsStartBesideTopUps(fetch(.start, 1_400), playing: planned, readPosition: 160_000, estimate: estimate,
                                                     remaining: 400_000, configuration: plan))
        #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(.start, 9_000), playing: planned, readPosition: 160_000, estimate: estimate,
                                                      remaining: 400_000, configuration: plan))
        #expect(!AdaptivePlan.admitsStartBesideTopUps(fetch(.start, 1_400), playing: short, readPosition: 160_000, estimate: estimate,
                                                      remaining: 400_000, configuration: plan), "the playing item still comes first")
        // Values at the edges do not trap.
        #expect(!AdaptivePlan.isNegligible(fetch(.start, 5_000), estimate: .min, configuration: plan))
        #expect(AdaptivePlan.isNegligible(fetch(.start, 1 << 40), estimate: .max, configuration: plan))
    }

    /// Two preloads may always be in flight; a third and fourth only while what those in
    /// flight still have to fetch is under the link's bandwidth-delay product (on 16 Mbit/s
    /// with a 200 ms first byte, 400 KB; on 2 Mbit/s with 40 ms, 10 KB); never a fifth.
    @Test func morePreloadsFlyOnlyWhileTheLinkWouldIdle() {
        var plan = AdaptivePlan.Configuration()
        plan.latency = .milliseconds(200)
        #expect(AdaptivePlan.preloadHasRoom(count: 1, remaining: .max, estimate: 1, configuration: plan))
        #expect(AdaptivePlan.preloadHasRoom(count: 2, remaining: 399_000, estimate: 16_000_000, configuration: plan))
        #expect(!AdaptivePlan.preloadHasRoom(count: 2, remaining: 401_000, estimate: 16_000_000, configuration: plan))
        #expect(AdaptivePlan.preloadHasRoom(count: 3, remaining: 1_500, estimate: 16_000_000, configuration: plan))
        #expect(!AdaptivePlan.preloadHasRoom(count: 4, remaining: 0, estimate: 16_000_000, configuration: plan))
        plan.latency = .milliseconds(40)
        #expect(!AdaptivePlan.preloadHasRoom(count: 2, remaining: 11_000, estimate: 2_000_000, configuration: plan))
        #expect(AdaptivePlan.preloadHasRoom(count: 2, remaining: 9_000, estimate: 2_000_000, configuration: plan))
        // A maximum at or under the fixed count adds none; estimates at Int64's edges do not trap.
        plan.maximumPreloadFetches = 2
        #expect(!AdaptivePlan.preloadHasRoom(count: 2, remaining: 0, estimate: 16_000_000, configuration: plan))
        plan.maximumPreloadFetches = 4
        #expect(AdaptivePlan.preloadHasRoom(count: 2, remaining: 0, estimate: .max, configuration: plan))
        #expect(!AdaptivePlan.preloadHasRoom(count: 2, remaining: 0, estimate: .min, configuration: plan))
    }
}
