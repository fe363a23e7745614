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
                if index > 0 {
                    starts.append("\(Demo.milliseconds(clock.now - start)) ms")
                    // A line per swipe as it happens: the section runs ~20 s, silent before.
                    print("    \(preloading ? "with" : "without") preloader, swipe \(index): first 100 KB after \(starts[starts.count - 1])")
                    fflush(nil)  // seen as it happens in a pipe too (`make demo | tee log`)
                }
                // Play from the end of the first 100 KB at the clip's bitrate while the player
                // buffers the rest, telling the preloader where it is every 100 ms as a player's
                // periodic time observer would; swipe after 1.5 s.
                let length = try await reader.contentInfo().length ?? 0
                let buffering = Task { _ = try? await reader.read(100_000..<length) }
                let bytesPerTick = Int64(items[index].bitRate ?? 0) / 8 / 10
                for tick in 0...15 {
                    if tick > 0 { try await Task.sleep(for: .milliseconds(100)) }
                    await preloader?.playbackPosition(min(length, 100_000 + Int64(tick) * bytesPerTick))
                }
                buffering.cancel()
                reader.close()
            }
            preloader?.cancel()
            let stats = preloader?.statistics
            print("  \(preloading ? "with the preloader:   " : "without a preloader:  ")" + starts.joined(separator: ", ")
                + (stats.map { "  (preloaded \($0.preloadedBytes) bytes, played \($0.playedBytes), wasted \($0.wastedBytes))" } ?? ""))
        }
        try await profileGrid(fixtures, scratch: scratch)
    }

    /// A profile grid of 24 animated covers over a 2 Mbit/s-per-download origin, 4 downloads
    /// at once: when each cell shows its first frame through CoverPipeline (progressive, from
    /// the bytes so far) against downloading each whole file and then decoding it.
    static func profileGrid(_ fixtures: URL, scratch: URL) async throws {
        let names = ["bench/cover-lossy-0", "bench/cover-lossy-1", "bench/cover-lossy-2", "bench/cover-lossy-3",
                     "bench/cover-lossless", "covers/cover-0", "covers/cover-1", "covers/cover-2"]
        let folder = scratch.appendingPathComponent("grid")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cells = try (0..<24).map { cell in
            let url = folder.appendingPathComponent("cell-\(cell).webp")
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("webp/\(names[cell % names.count]).webp"), to: url)
            return url
        }
        let origin = FileOrigin(bytesPerSecond: 256_000, chunkSize: 8 * 1024)
        let slots = CoverPipeline.Configuration().maxConcurrentDownloads
        print("\n== Profile grid: 24 animated covers over a simulated 2 Mbit/s link per download, \(slots) at once; "
            + "when the cells show their first frames")
        let clock = ContinuousClock()
        // Progressive: CoverPipeline shows a frame as soon as its bytes are in.
        let pipeline = CoverPipeline(imageCache: try TwoTierCache(directory: scratch.appendingPathComponent("grid-cache")), origin: origin)
        let progressiveStart = clock.now
        let progressive = try await withThrowingTaskGroup(of: Duration.self) { group in
            for url in cells { group.addTask { _ = try await pipeline.firstFrame(for: url); return clock.now - progressiveStart } }
            return try await group.reduce(into: []) { $0.append($1) }.sorted()
        }
        // Whole file: the same downloads, each decoded once it is complete.
        let wholeStart = clock.now
        let whole = try await withThrowingTaskGroup(of: Duration.self) { group in
            var times: [Duration] = []
            var pending = cells[...]
            func next() {
                guard let url = pending.popFirst() else { return }
                group.addTask {
                    var data = Data()
                    for try await piece in try await origin.fetch(OriginRequest(url: url, range: 0..<Int64.max)).body { data.append(piece) }
                    _ = try WebPAnimation(data: data).frame(at: 0)
                    return clock.now - wholeStart
                }
            }
            for _ in 0..<slots { next() }
            while let time = try await group.next() {
                times.append(time)
                next()
            }
            return times.sorted()
        }
        for (label, times) in [("progressive (CoverPipeline):", progressive), ("whole file, then decode:   ", whole)] {
            print("  \(label) first cell \(Demo.milliseconds(times[0])) ms, half the grid \(Demo.milliseconds(times[11])) ms, "
                + "all 24 \(Demo.milliseconds(times[23])) ms")
        }
    }
}
