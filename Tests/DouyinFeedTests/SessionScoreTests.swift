@testable import DouyinFeed
import Foundation
import Testing

/// The bench's QoE score and its oracle, on hand-made reports and traces.
@Suite struct SessionScoreTests {
    static let url = URL(string: "http://o.test/a.mp4")!

    static func view(_ number: Int, bitRate: Int, start: Int, started: Bool = true, stall: Int = 0, watch: Int) -> SessionReport.View {
        SessionReport.View(number: number, item: number - 1, shownAtUnixMilliseconds: 0, url: url, bitRate: bitRate,
                           start: .milliseconds(start), started: started, stall: .milliseconds(stall), watch: .milliseconds(watch),
                           playedBytes: 0)
    }

    /// Played Mbit/s × s, less μ per second waited (from the second view on; a view that never
    /// started waits its whole watch) or stalled, less 0.5 per Mbit never played.
    @Test func theScoreAddsWhatPlayedAndChargesWaitsStallsAndWaste() {
        let views = [
            Self.view(1, bitRate: 2_000_000, start: 500, watch: 4_500),             // cold start: not charged; 4 s at 2 Mbit/s = 8
            Self.view(2, bitRate: 1_000_000, start: 0, stall: 1_000, watch: 3_000),  // 2 s at 1 Mbit/s = 2; 1 s stalled
            Self.view(3, bitRate: 1_000_000, start: 700, started: false, watch: 700), // never started: 0.7 s waited
            Self.view(4, bitRate: 2_000_000, start: 300, watch: 1_300),              // 1 s at 2 = 2; 0.3 s waited
        ]
        let report = SessionReport(views: views, originBytes: 4_000_000, duplicateBytes: 0, unplayedBytes: 500_000, gearSwitches: 0)
        let score = SessionScore(report: report, topBitRate: 2_000_000)
        #expect(abs(score.playedMegabits - 12) < 1e-9)
        #expect(abs(score.waitSeconds - 1.0) < 1e-9)
        #expect(abs(score.stallSeconds - 1.0) < 1e-9)
        #expect(abs(score.unplayedMegabits - 4) < 1e-9)
        // 12 − 2 × (1 + 1) − 0.5 × 4 = 6, over 9.5 s watched.
        #expect(abs(score.value - 6) < 1e-9)
        #expect(abs(score.perWatchedMinute - 6 / (9.5 / 60)) < 1e-9)
        // The origin's own count replaces the report's.
        let counted = SessionScore(report: report, topBitRate: 2_000_000, unplayedBytes: 1_000_000)
        #expect(abs(counted.value - 4) < 1e-9)
    }

    @Test func aLinkScheduleCountsItsCapacity() {
        let link = LinkSchedule(bitsPerSecond: 8_000_000, changes: [.init(start: .seconds(10), bitsPerSecond: 2_000_000),
                                                                 .init(start: .seconds(20), bitsPerSecond: 8_000_000)])
        #expect(link.rate(at: .seconds(5)) == 8_000_000)
        #expect(link.rate(at: .seconds(15)) == 2_000_000)
        #expect(link.capacity(until: .seconds(10)) == 80_000_000)
        #expect(link.capacity(until: .seconds(25)) == 80_000_000 + 20_000_000 + 40_000_000)
        #expect(LinkSchedule(bitsPerSecond: -5).capacity(until: .seconds(3)) == 0)
    }

    static let items = [SessionOracle.Item(duration: .seconds(6), topBitRate: 2_000_000),
                        SessionOracle.Item(duration: .seconds(6), topBitRate: 2_000_000)]

    /// On a link faster than the top gear the oracle plays every second at the top gear.
    @Test func aFastLinkGivesTheOracleTheTopGearThroughout() {
        let trace = SwipeTrace(swipes: [.init(item: 0, watchMilliseconds: 3_000), .init(item: 1, watchMilliseconds: 2_000)])
        let score = SessionOracle.score(trace: trace, items: Self.items, link: LinkSchedule(bitsPerSecond: 8_000_000), waitCharge: 2)
        #expect(abs(score.playedMegabits - 10) < 1e-9)
        #expect(score.value == score.playedMegabits, "no wait, stall or waste")
    }

    /// On a slow link every bit played crosses the link before its view ends: 1 Mbit/s over
    /// 5 s plays 5 Mbit at most, filled earliest first.
    @Test func aSlowLinkBoundsTheOracleByItsCapacity() {
        let trace = SwipeTrace(swipes: [.init(item: 0, watchMilliseconds: 3_000), .init(item: 1, watchMilliseconds: 2_000)])
        let score = SessionOracle.score(trace: trace, items: Self.items, link: LinkSchedule(bitsPerSecond: 1_000_000), waitCharge: 2)
        #expect(abs(score.playedMegabits - 5) < 1e-9)
    }

    /// A view back to an item replays what it held (no bits, counted at the top gear), and
    /// seconds past the end of the file need none.
    @Test func revisitsAndSecondsPastTheEndNeedNoBits() {
        let trace = SwipeTrace(swipes: [.init(item: 0, watchMilliseconds: 2_000), .init(item: 1, watchMilliseconds: 1_000),
                                        .init(item: 0, watchMilliseconds: 8_000)])
        // A link that carries 3 Mbit in all: the first 2 s of item 0 (at 1 Mbit/s: 2 Mbit) and
        // then 1 Mbit for item 1; the revisit gets 0 more bits — yet the 3 s its first view
        // held (2 s watched, 1 s of start media) and the 2 s past the file's 6 s count at the
        // top gear: 5 of its 8 s.
        let link = LinkSchedule(bitsPerSecond: 1_000_000, changes: [.init(start: .seconds(3), bitsPerSecond: 0)])
        let score = SessionOracle.score(trace: trace, items: Self.items, link: link, waitCharge: 2)
        #expect(abs(score.playedMegabits - (2 + 1 + 2 * 5)) < 1e-9)
    }

    /// The oracle is an upper bound: a feasible plan worked by hand — each view at one of the
    /// gears, every bit arrived before it is played — never scores more.
    @Test func theOracleBoundsAHandMadeFeasiblePlan() {
        let trace = SwipeTrace(swipes: [.init(item: 0, watchMilliseconds: 4_000), .init(item: 1, watchMilliseconds: 4_000)])
        let link = LinkSchedule(bitsPerSecond: 1_500_000)
        let oracle = SessionOracle.score(trace: trace, items: Self.items, link: link, waitCharge: 2)
        // Both views at 1 Mbit/s: view 1's 4 Mbit arrive in 2.67 s, view 2's by 5.33 s, each ahead
        // of its play time. 8 Mbit played.
        #expect(oracle.value >= 8)
        #expect(oracle.value <= 12 + 1e-9, "the link carries 12 Mbit in 8 s")
    }
}
