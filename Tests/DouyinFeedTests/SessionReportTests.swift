import DouyinFeed
import DouyinTestSupport
import Foundation
import Testing

/// Issue 36 item 4: `feed session`'s summary is computed from the numbers its swipe lines
/// print, so a reader who adds the lines gets the summary. The session measures time finer than
/// a millisecond and each line prints whole milliseconds: a summary of the unrounded times
/// said `stall_ms=75` where its lines added up to 68.
@Suite struct SessionReportTests {
    /// What a reader of the printed lines computes for the summary's figures.
    struct ReadBack: Equatable {
        var swipes = 0, ready = 0, p50 = 0, p95 = 0, stall = 0, played = 0
    }

    static func readBack(_ lines: [String]) -> ReadBack {
        var result = ReadBack()
        var starts: [Int] = []
        for line in lines {
            let match = line.wholeMatch(of: #/swipe \d+ item=\d+ at_ms=\d+ url=\S+ start_ms=(\d+) stall_ms=(\d+) played_bytes=(\d+)/#)!
            let start = Int(match.1)!
            result.swipes += 1
            if start <= 10 { result.ready += 1 }
            if result.swipes > 1 { starts.append(start) }
            result.stall += Int(match.2)!
            result.played += Int(match.3)!
        }
        starts.sort()
        // Nearest rank over swipes 2...N, as DESIGN.md defines the percentiles.
        func percentile(_ percent: Int) -> Int { starts.isEmpty ? 0 : starts[max(0, (percent * starts.count + 99) / 100 - 1)] }
        (result.p50, result.p95) = (percentile(50), percentile(95))
        return result
    }

    static func summary(_ line: String) -> ReadBack {
        let match = line.wholeMatch(of: #/summary swipes=(\d+) ready=(\d+) start_p50_ms=(\d+) start_p95_ms=(\d+) stall_ms=(\d+) origin_bytes=\d+ played_bytes=(\d+)/#)!
        return ReadBack(swipes: Int(match.1)!, ready: Int(match.2)!, p50: Int(match.3)!, p95: Int(match.4)!, stall: Int(match.5)!, played: Int(match.6)!)
    }

    /// Random views whose times fall between milliseconds (seeded; the seed is in every
    /// failure): the summary is what the lines add up to, whatever the fractions.
    @Test func theSummaryIsWhatItsLinesAddUpTo() {
        var random = SeededRandom(seed: UInt64.random(in: 1...UInt64.max))
        let seed = random.description
        for round in 0..<200 {
            let views = (0..<Int.random(in: 1...45, using: &random)).map { index in
                // At least 1 s: a swipe left unstarted within 10 ms prints as ready would.
                let watch = Duration.microseconds(Int64.random(in: 1_000_000...20_000_000, using: &random))
                let started = Int.random(in: 0..<5, using: &random) > 0
                // Starts near the 10 ms ready line half the time.
                let start = started ? Duration.microseconds(Int64.random(in: Bool.random(using: &random) ? 9_000...11_999 : 0...3_000_000, using: &random)) : watch
                return SessionReport.View(number: index + 1, item: index, shownAtUnixMilliseconds: 1_700_000_000_000, url: URL(string: "http://o.test/\(index).mp4")!,
                                          bitRate: 1_000_000, start: start, started: started,
                                          stall: started ? .microseconds(Int64.random(in: 0...2_000_000, using: &random)) : .zero,
                                          watch: watch, playedBytes: Int64.random(in: 0...5_000_000, using: &random))
            }
            let report = SessionReport(views: views, originBytes: 0, duplicateBytes: 0, unplayedBytes: 0, gearSwitches: 0)
            let read = Self.readBack(views.map(\.line))
            #expect(Self.summary(report.summaryLine) == read, "\(seed), round \(round): \(report.summaryLine)")
            // The figures the demo and the bench print are the same numbers.
            #expect(report.stallTime == .milliseconds(read.stall) && report.readyCount == read.ready, "\(seed), round \(round)")
        }
    }

    /// The two cases by hand: four stalls of 2.5 ms print 2 each, so the summary says 8, not
    /// 10; a start of 10.6 ms prints 10 and is counted ready, as a reader counts it.
    @Test func fractionsOfAMillisecondAreDroppedOnceInTheLinesNotAgainInTheSummary() {
        let views = (0..<4).map { index in
            SessionReport.View(number: index + 1, item: index, shownAtUnixMilliseconds: 0, url: URL(string: "http://o.test/v.mp4")!, bitRate: 1,
                               start: .microseconds(10_600), started: true, stall: .microseconds(2_500), watch: .seconds(1), playedBytes: 1)
        }
        let report = SessionReport(views: views, originBytes: 0, duplicateBytes: 0, unplayedBytes: 0, gearSwitches: 0)
        #expect(views[0].line.hasSuffix("start_ms=10 stall_ms=2 played_bytes=1"))
        #expect(report.summaryLine == "summary swipes=4 ready=4 start_p50_ms=10 start_p95_ms=10 stall_ms=8 origin_bytes=0 played_bytes=4")
    }
}
