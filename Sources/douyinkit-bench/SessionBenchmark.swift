import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation

/// `douyinkit-bench session` (issue 24): whole feed sessions in real time, the three
/// policies on the same seeded swipe traces and the same shaped origin, interleaved (each
/// round runs every policy, in an order that rotates), a table per bandwidth.
///
/// Test bed: 8 ffmpeg clips of 6 s in three gears (~0.6/1.2/2.4 Mbit/s, half with `moov` at
/// the end), a feed of 48 items over them, a loopback origin with one token bucket for all its
/// connections and 40 ms before each first byte. `SESSION_SWIPES` (default 40, split over 2
/// rounds), `SESSION_RATES` (Mbit/s, default `8,4,16`), `SESSION_POLICIES` (default all three,
/// for an experiment run) and `SESSION_PLAY_AHEAD_MS` (the adaptive buffer target's ceiling,
/// default the library's 1,500) change the run. Besides the table, the throughput the playing
/// video got (bytes/s of its transfers while they flowed) under each policy, adaptive against
/// none on the same traces: the "≥ 95 % of the throughput with preloading off".
enum SessionBenchmark {
    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let swipes = max(2, environment["SESSION_SWIPES"].flatMap(Int.init) ?? 40)
        let rates = (environment["SESSION_RATES"] ?? "8,4,16").split(separator: ",").compactMap { Int($0) }
        let rounds = swipes >= 20 ? 2 : 1
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let media = try await SessionMedia.generate(in: scratch.appendingPathComponent("media"), count: 8, seconds: 6)
        let origin = try await ShapedOrigin.start(root: media.directory, rate: 8_000_000)
        defer { origin.stop() }
        let feed = try media.feedJSON(base: origin.base, items: 48)
        let items = try SessionItem.items(fromFeedJSON: feed)
        let traces = (0..<rounds).map { round in
            SwipeTrace.generated(seed: 24 + UInt64(round), swipes: swipes / rounds, itemCount: items.count) { _ in .seconds(6) }
        }
        print("session: \(swipes) swipes a policy (\(rounds) seeded traces), 8 clips × 6 s × 3 gears, 48 items, one shaped link, 40 ms to first byte")
        var runs = 0
        for rate in rates {
            try await origin.setRate(rate * 1_000_000)
            var reports: [FeedSession.Policy: [SessionReport]] = [:]
            let named = (environment["SESSION_POLICIES"] ?? "").split(separator: ",").compactMap { FeedSession.Policy(rawValue: String($0)) }
            let policies = named.isEmpty ? FeedSession.Policy.allCases : named
            for (round, trace) in traces.enumerated() {
                for shift in 0..<policies.count {
                    let policy = policies[(shift + round + rates.firstIndex(of: rate)!) % policies.count]
                    runs += 1
                    var configuration = FeedSession.Configuration()
                    configuration.policy = policy
                    if let ahead = environment["SESSION_PLAY_AHEAD_MS"].flatMap(Int.init) {
                        configuration.plan.playAhead = .milliseconds(max(0, ahead))
                    }
                    let session = try FeedSession(items: items, directory: scratch.appendingPathComponent("cache-\(runs)"), configuration: configuration)
                    reports[policy, default: []].append(await SessionReplay.run(session, trace: trace))
                }
            }
            print("\n\(rate) Mbit/s")
            print("| policy | ready % (fwd) | p50 start ms | p95 start ms | stall % | MB fetched | MB played | unplayed % | dup bytes | kbit/s played | gear switches | playing kB/s |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|")
            for policy in policies {
                print(row(policy, reports[policy] ?? []))
            }
            if let adaptive = throughput(reports[.adaptive] ?? []), let none = throughput(reports[.none] ?? []), none > 0 {
                print("playing video throughput, adaptive / none: \(fixed(adaptive / none * 100, 1)) % (\(fixed(adaptive / 1000, 0)) vs \(fixed(none / 1000, 0)) kB/s)")
            }
        }
    }

    /// The playing video's throughput over a policy's rounds, bytes per second; `nil` without a transfer.
    static func throughput(_ reports: [SessionReport]) -> Double? {
        let bytes = reports.reduce(Int64(0)) { $0 + $1.playingTransferBytes }
        let time = reports.reduce(Duration.zero) { $0 + $1.playingTransferTime }
        let seconds = time.inSeconds
        return seconds > 0 ? Double(bytes) / seconds : nil
    }

    /// One table row over a policy's rounds (percentiles over each round's swipes 2...N).
    static func row(_ policy: FeedSession.Policy, _ reports: [SessionReport]) -> String {
        let starts = reports.flatMap { $0.views.dropFirst().map(\.start) }.sorted()
        func percentile(_ percent: Double) -> Int64 {
            guard !starts.isEmpty else { return 0 }
            let value = starts[max(0, Int((percent / 100 * Double(starts.count)).rounded(.up)) - 1)]
            return value.wholeMilliseconds
        }
        let forward = reports.map(\.forwardReadyShare)
        let ready = forward.isEmpty ? 0 : forward.reduce(0, +) / Double(forward.count) * 100
        let stall = reports.reduce(Duration.zero) { $0 + $1.stallTime }
        let watch = reports.reduce(Duration.zero) { $0 + $1.watchTime }
        let fetched = reports.reduce(Int64(0)) { $0 + $1.originBytes }
        let played = reports.reduce(Int64(0)) { $0 + $1.playedBytes }
        let unplayed = reports.reduce(Int64(0)) { $0 + $1.unplayedBytes }
        let duplicate = reports.reduce(Int64(0)) { $0 + $1.duplicateBytes }
        let rates = reports.map(\.weightedBitRate)
        let switches = reports.reduce(0) { $0 + $1.gearSwitches }
        return "| \(policy.rawValue) | \(fixed(ready, 1)) | \(percentile(50)) | \(percentile(95)) | "
            + "\(fixed(watch > .zero ? stall.inSeconds / watch.inSeconds * 100 : 0, 2)) | \(fixed(Double(fetched) / 1e6)) | "
            + "\(fixed(Double(played) / 1e6)) | \(fixed(fetched > 0 ? Double(unplayed) / Double(fetched) * 100 : 0, 1)) | \(duplicate) | "
            + "\(Int(rates.reduce(0, +) / Double(max(1, rates.count)) / 1000)) | \(switches) | \(throughput(reports).map { fixed($0 / 1000, 0) } ?? "–") |"
    }
}
