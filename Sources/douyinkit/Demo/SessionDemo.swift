import DouyinKit
import Foundation

/// The feed-session part of `douyinkit demo`: 20 seeded swipes shaped like short-video
/// retention (skips, a body of short views, some full ones; watch times a quarter of the
/// bench's so the section stays under 30 s) through a feed of the Fixtures videos from a
/// `file://` origin that sends each request at 2 Mbit/s (not one shared link: that is the
/// bench's test bed), the adaptive policy beside the fixed rule and none. Each policy gets its
/// own origin and cache and all run at once; a table per swipe, then the totals and each
/// policy's ``SessionScore`` a watched minute.
enum SessionDemo {
    /// Bytes per second each request is sent at: 2 Mbit/s.
    static let linkRate = 250_000

    static func run(_ fixtures: URL) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-session-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sources = scratch.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        var items: [SessionItem] = []
        for index in 0..<8 {
            // Alternate faststart and moov-at-end files, each under its own name (its own URL).
            let fixture = fixtures.appendingPathComponent(index % 2 == 0 ? "video/clip.mp4" : "feed/moov-at-end.mp4")
            let file = sources.appendingPathComponent("v\(index).mp4")
            try FileManager.default.copyItem(at: fixture, to: file)
            items.append(SessionItem(playURL: file, gears: [Gear(url: file, bitRate: 415_000)], duration: .seconds(5)))
        }
        let generated = SwipeTrace.generated(seed: 24, swipes: 20, itemCount: items.count) { _ in .seconds(5) }
        let trace = SwipeTrace(swipes: generated.swipes.map { .init(item: $0.item, watchMilliseconds: $0.watchMilliseconds / 4) })
        let watch = trace.swipes.reduce(0) { $0 + $1.watchMilliseconds }
        print("\n== Feed session: \(trace.swipes.count) swipes (\(watch / 1000) s of watching, \(trace.swipes.filter { $0.watchMilliseconds < 250 }.count) "
            + "skips), 8 videos of 415 kbit/s, each request sent at 2 Mbit/s: the adaptive policy beside the fixed rule and none, all at once")
        fflush(nil)  // the section is silent while it plays
        // A constant for the concurrent plays (the Thread Sanitizer build's region check
        // refused handing the mutable `items` to each).
        let feed = items
        async let adaptive = play(.adaptive, items: feed, trace: trace, directory: scratch.appendingPathComponent("adaptive"))
        async let fixed = play(.fixed, items: feed, trace: trace, directory: scratch.appendingPathComponent("fixed"))
        async let none = play(.none, items: feed, trace: trace, directory: scratch.appendingPathComponent("none"))
        let (a, f, n) = try await (adaptive, fixed, none)
        print("  swipe  item  watch ms | adaptive start ms  stall ms | fixed start ms  stall ms")
        for (left, right) in zip(a.views, f.views) {
            print("  " + pad(left.number, 5) + "  " + pad(left.item, 4) + "  " + pad(left.watch, 8) + " | "
                + pad(left.start, 17) + "  " + pad(left.stall, 8) + " | " + pad(right.start, 14) + "  " + pad(right.stall, 8))
        }
        for (name, report) in [("adaptive", a), ("fixed   ", f), ("none    ", n)] {
            let unplayed = report.originBytes > 0 ? Double(report.unplayedBytes) / Double(report.originBytes) * 100 : 0
            let score = SessionScore(report: report, topBitRate: 415_000)
            print("  \(name): forward swipes ready at once \(String(format: "%.0f", report.forwardReadyShare * 100)) %, "
                + "start p50 \(Demo.milliseconds(report.startPercentile(50))) ms p95 \(Demo.milliseconds(report.startPercentile(95))) ms "
                + "(swipes 2-\(report.views.count)), stall \(Demo.milliseconds(report.stallTime)) ms, \(report.originBytes) bytes from the origin, "
                + "\(String(format: "%.1f", unplayed)) % of them never played, \(report.duplicateBytes) fetched twice; "
                + "score \(String(format: "%.1f", score.perWatchedMinute)) a watched minute")
        }
        print("  (score: Mbit/s played × s − 0.415 × s waited to start or stalled − 0.5 × Mbit never played; BENCHMARKS.md, \"Feed sessions\")")
    }

    /// One policy's session over its own throttled origin and cache.
    static func play(_ policy: FeedSession.Policy, items: [SessionItem], trace: SwipeTrace, directory: URL) async throws -> SessionReport {
        var configuration = FeedSession.Configuration()
        configuration.policy = policy
        let origin = FileOrigin(bytesPerSecond: linkRate, chunkSize: 16 * 1024)
        let session = try FeedSession(items: items, directory: directory, origin: origin, configuration: configuration)
        return await SessionReplay.run(session, trace: trace)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - String(value).count)) + String(value)
    }

    static func pad(_ duration: Duration, _ width: Int) -> String {
        pad(Int(Demo.milliseconds(duration)), width)
    }
}
