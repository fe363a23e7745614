import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation

/// `douyinkit-bench session` (issue 38): whole feed sessions in real time over a matrix of
/// links, each cell's three policies at once, each on its own fresh origin (one shaped link
/// per origin, so they do not share), scored by ``SessionScore`` beside ``SessionOracle``'s
/// bound for the same trace and link.
///
/// Test bed: 12 ffmpeg clips of 6 s in three gears (~0.6/1.2/2.4 Mbit/s, half with `moov` at
/// the end), a feed of 48 items over them. Cells: 2, 4, 8 and 16 Mbit/s with 40 or 200 ms to
/// each first byte, and `drop` (8 Mbit/s, 80 ms, 1.5 Mbit/s from 40 s to 70 s). Traces rotate
/// over the cells: three seeds of the retention-shaped trace and one that goes back a third
/// of the time. The bytes fetched are the origin's own count (what it sent, read or not).
///
/// `SESSION_CELLS` (names as printed, e.g. `8/40,drop`; default all; a name outside the
/// matrix, `<Mbit/s>/<ms>` or `<Mbit/s>/<ms>@<trace 0-3>`, runs a held-out link, e.g.
/// `3/150@1`; the trace defaults to the one that goes back often), `SESSION_SWIPES`
/// (default 40 a trace), `SESSION_POLICIES` (default all three) and `SESSION_SPARE_REACH`
/// (``SessionProfile/Configuration/spareReach``; 0 turns rule 5 off) and `SESSION_MAX_PRELOADS`
/// (``AdaptivePlan/Configuration/maximumPreloadFetches``; 2 keeps two in flight) and `SESSION_PRELOADS`
/// (``AdaptivePlan/Configuration/preloadFetches``) and `SESSION_MAX_DEPTH` (seconds,
/// ``SessionProfile/Configuration/maxDepth``; 0, the default, turns depth off) change the run;
/// `SESSION_LOG=<policy>` traces that policy's decisions and views on standard error, and at
/// the end where its unplayed bytes lie (items never shown, gears not shown, the rest in
/// files that were shown).
enum SessionBenchmark {
    struct Cell {
        var name: String
        var megabits: Double
        var latency: Int
        var drop: Bool
        var trace: Int

        init(name: String, megabits: Double, latency: Int, drop: Bool, trace: Int) {
            (self.name, self.megabits, self.latency, self.drop, self.trace) = (name, megabits, latency, drop, trace)
        }

        /// A link outside the matrix named `<Mbit/s>/<ms>[@<trace>]`; `nil` for another name.
        init?(heldOut name: String, traces: Int) {
            let pieces = name.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let parts = pieces[0].split(separator: "/")
            let traceName = pieces.count > 1 ? String(pieces[1]) : nil
            guard parts.count == 2, let megabits = Double(parts[0]), megabits > 0, megabits.isFinite,
                  let latency = Int(parts[1]), (0...10_000).contains(latency) else { return nil }
            // A trace named but not a number is refused, not run on the default.
            guard let trace = traceName.map({ Int($0) }) ?? traces - 1, (0..<traces).contains(trace) else { return nil }
            self.init(name: name, megabits: megabits, latency: latency, drop: false, trace: trace)
        }

        var link: LinkSchedule {
            let base = Int64(megabits * 1e6)
            guard drop else { return LinkSchedule(bitsPerSecond: base) }
            return LinkSchedule(bitsPerSecond: base, changes: [.init(start: .seconds(40), bitsPerSecond: 1_500_000),
                                                               .init(start: .seconds(70), bitsPerSecond: base)])
        }
    }

    struct Outcome {
        var report: SessionReport
        var originBytes: Int64
        var score: SessionScore
    }

    static let cells: [Cell] = {
        var cells: [Cell] = []
        for rate in [2.0, 4, 8, 16] {
            for latency in [40, 200] {
                cells.append(Cell(name: "\(Int(rate))/\(latency)", megabits: rate, latency: latency, drop: false, trace: cells.count % 4))
            }
        }
        cells.append(Cell(name: "drop", megabits: 8, latency: 80, drop: true, trace: cells.count % 4))
        return cells
    }()

    static func traces(swipes: Int, items: Int) -> [(name: String, trace: SwipeTrace)] {
        let length: (Int) -> Duration = { _ in .seconds(6) }
        return [
            ("retention seed 38", SwipeTrace.generated(seed: 38, swipes: swipes, itemCount: items, length: length)),
            ("retention seed 39", SwipeTrace.generated(seed: 39, swipes: swipes, itemCount: items, length: length)),
            ("retention seed 40", SwipeTrace.generated(seed: 40, swipes: swipes, itemCount: items, length: length)),
            ("back often (seed 41)", SwipeTrace.generated(seed: 41, swipes: swipes, itemCount: items, backShare: 0.33, length: length)),
        ]
    }

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let swipes = max(2, environment["SESSION_SWIPES"].flatMap(Int.init) ?? 40)
        let chosen = Set((environment["SESSION_CELLS"] ?? "").split(separator: ",").map(String.init))
        let named = (environment["SESSION_POLICIES"] ?? "").split(separator: ",").compactMap { FeedSession.Policy(rawValue: String($0)) }
        let policies = named.isEmpty ? FeedSession.Policy.allCases : named
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let media = try await SessionMedia.generate(in: scratch.appendingPathComponent("media"), count: 12, seconds: 6)
        let feedItems = 48
        let traces = traces(swipes: swipes, items: feedItems)
        let top = media.clips.flatMap { $0.gears.map(\.bitRate) }.max() ?? 1
        let oracleItems = (0..<feedItems).map { index in
            let clip = media.clips[index % media.clips.count]
            return SessionOracle.Item(duration: clip.duration, topBitRate: clip.gears.map(\.bitRate).max() ?? 1)
        }
        print("session: \(swipes) swipes a cell, 12 clips × 6 s × 3 gears (\(media.clips[0].gears.map { "\($0.bitRate / 1000)" }.joined(separator: "/")) kbit/s), "
            + "48 items; each policy on its own shaped origin, all three at once; μ = \(fixed(Double(top) / 1e6)) Mbit/s")
        var summary: [String] = []
        var shares: [Double] = []
        let unknown = chosen.subtracting(cells.map(\.name)).sorted()
        let heldOut = unknown.compactMap { Cell(heldOut: $0, traces: traces.count) }
        for name in unknown where !heldOut.contains(where: { $0.name == name }) {
            // Said, not skipped in silence: a typo would otherwise run nothing and report nothing.
            FileHandle.standardError.write(Data("session: SESSION_CELLS names no cell and no link <Mbit/s>/<ms>[@0-\(traces.count - 1)]: \(name)\n".utf8))
        }
        for (number, cell) in (cells + heldOut).enumerated() where chosen.isEmpty || chosen.contains(cell.name) {
            let (traceName, trace) = traces[cell.trace]
            let cellScratch = scratch.appendingPathComponent("cell-\(number)")
            let outcomes = try await run(cell, policies: policies, trace: trace, media: media, scratch: cellScratch, top: top)
            // A cell's caches go before the next cell: kept, they would make every later cell's
            // writes dearer (see TransportBenchmark.coldVideo) the further down the matrix it is.
            try? FileManager.default.removeItem(at: cellScratch)
            let oracle = SessionOracle.score(trace: trace, items: oracleItems, link: cell.link, waitCharge: Double(top) / 1e6)
            print("\n\(cell.name): \(cell.drop ? "8 Mbit/s dropping to 1.5 from 40 s to 70 s" : "\(fixed(cell.megabits, 0)) Mbit/s"), "
                + "\(cell.latency) ms to first byte; \(traceName)")
            print("| policy | ready % (fwd) | p50 start ms | p95 start ms | stall ms | stall % | MB fetched | unplayed % | kbit/s played | score/min |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for policy in policies {
                guard let outcome = outcomes[policy] else { continue }
                print(row(policy.rawValue, outcome))
            }
            let share = outcomes[.adaptive].map { $0.score.value / max(1e-9, oracle.value) }
            print("| oracle | 100 | 0 | 0 | 0 | 0 | – | 0 | \(Int(oracle.playedMegabits / oracle.watchSeconds * 1000)) | \(fixed(oracle.perWatchedMinute, 1)) |")
            if let share { shares.append(share) }
            let verdict = verdict(cell, outcomes)
            print("adaptive: \(share.map { fixed($0 * 100, 1) + " % of the oracle's score" } ?? "not run"); targets: \(verdict)")
            summary.append("| \(cell.name) | " + policies.map { outcomes[$0].map { fixed($0.score.perWatchedMinute, 1) } ?? "–" }.joined(separator: " | ")
                + " | \(fixed(oracle.perWatchedMinute, 1)) | \(share.map { fixed($0 * 100, 1) } ?? "–") | \(verdict) |")
        }
        print("\n| cell | " + policies.map { "\($0.rawValue) score/min" }.joined(separator: " | ") + " | oracle score/min | adaptive % of oracle | targets |")
        print("|---|" + policies.map { _ in "---|" }.joined() + "---|---|---|")
        for line in summary { print(line) }
        if !shares.isEmpty {
            let sorted = shares.sorted()
            print("median cell: adaptive at \(fixed(sorted[(sorted.count - 1) / 2] * 100, 1)) % of the oracle (target ≥ 80 %)")
        }
    }

    /// One cell: each policy on its own fresh origin and cache, all at once, the drop applied
    /// to every origin on the same clock.
    static func run(_ cell: Cell, policies: [FeedSession.Policy], trace: SwipeTrace, media: SessionMedia, scratch: URL,
                    top: Int) async throws -> [FeedSession.Policy: Outcome] {
        var origins: [FeedSession.Policy: ShapedOrigin] = [:]
        for policy in policies {
            origins[policy] = try await ShapedOrigin.start(root: media.directory, rate: Int(cell.megabits * 1e6), latencyMilliseconds: cell.latency)
        }
        defer { for origin in origins.values { origin.stop() } }
        let shaped = origins
        let link = cell.link
        let changes = Task {
            var last = Duration.zero
            for step in link.steps.dropFirst() {
                try await Task.sleep(for: step.start - last)
                last = step.start
                for origin in shaped.values { try await origin.setRate(Int(step.bitsPerSecond)) }
            }
        }
        defer { changes.cancel() }
        return try await withThrowingTaskGroup(of: (FeedSession.Policy, Outcome).self) { group in
            for policy in policies {
                let origin = shaped[policy]!
                let items = try SessionItem.items(fromFeedJSON: try media.feedJSON(base: origin.base, items: 48))
                group.addTask {
                    var configuration = FeedSession.Configuration()
                    configuration.policy = policy
                    if let reach = ProcessInfo.processInfo.environment["SESSION_SPARE_REACH"].flatMap(Int.init) { configuration.profile.spareReach = reach }
                    if let most = ProcessInfo.processInfo.environment["SESSION_MAX_PRELOADS"].flatMap(Int.init) { configuration.plan.maximumPreloadFetches = most }
                    if let count = ProcessInfo.processInfo.environment["SESSION_PRELOADS"].flatMap(Int.init) { configuration.plan.preloadFetches = count }
                    if let seconds = ProcessInfo.processInfo.environment["SESSION_MAX_DEPTH"].flatMap(Double.init) {
                        configuration.profile.maxDepth = .milliseconds(Int64((max(0, min(seconds, 3600)) * 1000).rounded()))
                    }
                    let started = ContinuousClock.now
                    let logs = ProcessInfo.processInfo.environment["SESSION_LOG"] == policy.rawValue
                    if logs {
                        // A trace of the policy's decisions on standard error, for a run of one cell.
                        configuration.log = LogHandler { event in
                            guard event.subsystem == "DouyinFeed.FeedSession" else { return }
                            FileHandle.standardError.write(Data("\(started.duration(to: .now).wholeMilliseconds) \(event.message) \(event.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))\n".utf8))
                        }
                    }
                    let session = try FeedSession(items: items, directory: scratch.appendingPathComponent(policy.rawValue), configuration: configuration)
                    let report = await SessionReplay.run(session, trace: trace) { view in
                        guard logs else { return }
                        FileHandle.standardError.write(Data("\(started.duration(to: .now).wholeMilliseconds) \(view.line) watch_ms=\(view.watch.wholeMilliseconds) estimate=\(session.meter.estimate) latency=\(session.meter.latencyBound.map { "\($0.wholeMilliseconds)" } ?? "-") spread=\(fixed(session.meter.snapshot.spread))\n".utf8))
                    }
                    if logs {
                        FileHandle.standardError.write(Data("unplayed total=\(report.unplayedBytes) items_not_shown=\(report.unplayedOfItemsNotShown) other_gears=\(report.unplayedOfOtherGears) duplicates=\(report.duplicateBytes) origin=\(report.originBytes)\n".utf8))
                    }
                    let sent = try await origin.stats().bodyBytes
                    // Bytes the origin sent that no view played: its own count less what was played.
                    let unplayed = sent - (report.originBytes - report.unplayedBytes)
                    return (policy, Outcome(report: report, originBytes: sent,
                                            score: SessionScore(report: report, topBitRate: top, unplayedBytes: unplayed)))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    /// The issue's targets for the adaptive policy in `cell`: on a link of at least twice the
    /// middle gear (2.4 Mbit/s), ready ≥ 95 %, stall ≤ 1 %, unplayed ≤ 10 %, at least the
    /// fixed rule's bitrate; on every link a score above fixed and none.
    static func verdict(_ cell: Cell, _ outcomes: [FeedSession.Policy: Outcome]) -> String {
        guard let adaptive = outcomes[.adaptive] else { return "–" }
        var missed: [String] = []
        let others = [FeedSession.Policy.fixed, .none].compactMap { outcomes[$0] }
        if others.contains(where: { $0.score.value >= adaptive.score.value }) { missed.append("score") }
        if !cell.drop, cell.megabits >= 2.4 {
            let report = adaptive.report
            if report.forwardReadyShare < 0.95 { missed.append("ready") }
            if report.stallTime.inSeconds > 0.01 * report.watchTime.inSeconds { missed.append("stall") }
            if adaptive.score.unplayedMegabits * 1e6 / 8 > 0.10 * Double(adaptive.originBytes) { missed.append("unplayed") }
            if let fixed = outcomes[.fixed], report.weightedBitRate < fixed.report.weightedBitRate { missed.append("bitrate") }
        }
        return missed.isEmpty ? "met" : "missed " + missed.joined(separator: ", ")
    }

    /// One table row.
    static func row(_ name: String, _ outcome: Outcome) -> String {
        let report = outcome.report
        let watch = report.watchTime.inSeconds
        let unplayed = outcome.originBytes > 0 ? outcome.score.unplayedMegabits * 1e6 / 8 / Double(outcome.originBytes) * 100 : 0
        return "| \(name) | \(fixed(report.forwardReadyShare * 100, 1)) | \(report.startPercentile(50).wholeMilliseconds) | "
            + "\(report.startPercentile(95).wholeMilliseconds) | \(report.stallTime.wholeMilliseconds) | "
            + "\(fixed(watch > 0 ? report.stallTime.inSeconds / watch * 100 : 0, 2)) | \(fixed(Double(outcome.originBytes) / 1e6)) | "
            + "\(fixed(unplayed, 1)) | \(Int(report.weightedBitRate / 1000)) | \(fixed(outcome.score.perWatchedMinute, 1)) |"
    }
}
