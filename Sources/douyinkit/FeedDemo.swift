import DouyinKit
import Foundation

/// The feed part of `douyinkit demo`: five swipes through a feed of local videos over a slow
/// link, the player buffering each as it plays and the viewer swiping after 1.5 s, with and
/// without the preloader; per swipe the time until the next video's first 100 KB (enough to
/// start) are there.
enum FeedDemo {
    static func run(_ fixtures: URL) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-feed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sources = scratch.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        var items: [FeedItem] = []
        for index in 0..<6 {
            // Alternate faststart and moov-at-end files, each under its own name (its own URL).
            let fixture = fixtures.appendingPathComponent(index % 2 == 0 ? "video/clip.mp4" : "feed/moov-at-end.mp4")
            let file = sources.appendingPathComponent("v\(index).mp4")
            try FileManager.default.copyItem(at: fixture, to: file)
            items.append(FeedItem(videoURL: file, bitRate: 415_000, duration: .seconds(5)))
        }
        print("\n== Feed: 5 swipes over a simulated 1.6 Mbit/s link, each video watched for 1.5 s; "
            + "time until the next video's first 100 KB are held")
        for preloading in [false, true] {
            let directory = scratch.appendingPathComponent(preloading ? "with" : "without")
            let cache = try VideoCache(directory: directory, sizeLimit: 64 << 20, origin: FileOrigin(bytesPerSecond: 200_000, chunkSize: 16 * 1024))
            let preloader = preloading ? FeedPreloader(videoCache: cache, imageCache: nil) : nil
            preloader?.setItems(items, current: 0)
            var starts: [String] = []
            let clock = ContinuousClock()
            for index in 0..<6 {
                if index > 0 { preloader?.show(index) }
                let reader = cache.reader(for: items[index].videoURL!)
                let start = clock.now
                _ = try await reader.read(0..<100_000)
                if index > 0 { starts.append("\(Demo.milliseconds(clock.now - start)) ms") }
                // Play from the start while the player buffers the rest; swipe after 1.5 s.
                let length = try await reader.contentInfo().length ?? 0
                let buffering = Task { _ = try? await reader.read(100_000..<length) }
                await preloader?.playbackPosition(0)
                try await Task.sleep(for: .milliseconds(1500))
                buffering.cancel()
                reader.close()
            }
            preloader?.cancel()
            let stats = preloader?.statistics
            print("  \(preloading ? "with the preloader:   " : "without a preloader:  ")" + starts.joined(separator: ", ")
                + (stats.map { "  (preloaded \($0.preloadedBytes) bytes, played \($0.playedBytes), wasted \($0.wastedBytes))" } ?? ""))
        }
    }
}
