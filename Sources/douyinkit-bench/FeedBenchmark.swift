import DouyinKit
import DouyinTestSupport
import Foundation

/// The feed (issue 15) over loopback nginx whose `limit_rate` caps each connection: the
/// preloader's next-video start and its cost to the playing video, progressive cover first
/// frames, and the bytes a swiping session wastes.
///
/// Scaled to run in seconds: 3 MB videos of 4 Mbit/s (6 s each) over 4 MB/s connections, so
/// the link is 8× the bitrate, as a 12 Mbit/s phone link is for the feeds' 1.5 Mbit/s videos.
/// `limit_rate` is per connection: two transfers do not share one link here, so (b) measures
/// what preloading costs the playing video on this machine (CPU, disk, locks), not a shared
/// downlink.
enum FeedBenchmark {
    static let videoBytes = 3 << 20
    static let bitRate = 4_000_000
    static let prefix = 819_200

    static func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // nginx sends up to one second's worth at once before limit_rate paces it, in sends of
        // up to sendfile_max_chunk (2 MB by default): small sends make the pace smooth, else a
        // whole 819,200-byte prefix arrives at once.
        let nginx = try await NginxOrigin.start(extraLocations: """
            location /v/ { limit_rate 4m; sendfile_max_chunk 16k; }
            location /c/ { limit_rate 512k; sendfile_max_chunk 16k; }
            """)
        var state: UInt64 = 0xfeed
        let body = Data((0..<videoBytes).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
        var items: [FeedItem] = []
        for index in 0..<12 {
            try nginx.serve(body, at: "/v/\(index).mp4")
            items.append(FeedItem(videoURL: nginx.url("/v/\(index).mp4"), bitRate: bitRate, duration: .seconds(6)))
        }
        var runs = 0
        let freshCache = { () throws -> VideoCache in
            runs += 1
            return try VideoCache(directory: scratch.appendingPathComponent("cache-\(runs)"), sizeLimit: 1 << 30)
        }
        print("feed: 3 MB videos at 4 Mbit/s over 4 MB/s per connection (loopback nginx limit_rate), prefix 819,200 bytes")
        try await nextVideoStart(items, freshCache)
        try await playingVideo(items, freshCache)
        try await covers(nginx, scratch: scratch)
        try await wastedBytes(items, freshCache)
    }

    /// (a) The viewer watches video 0 for 1.2 s while the player buffers it, then swipes: time
    /// until video 1's first 819,200 bytes are held, with the preloader against without.
    static func nextVideoStart(_ items: [FeedItem], _ freshCache: () throws -> VideoCache) async throws {
        func session(preloading: Bool) async throws -> Double {
            let cache = try freshCache()
            defer { try? FileManager.default.removeItem(at: cache.directory) }
            let preloader = preloading ? FeedPreloader(videoCache: cache, imageCache: nil) : nil
            preloader?.setItems(items, current: 0)
            let player = cache.reader(for: items[0].videoURL!)
            let buffering = Task { _ = try? await player.read(0..<Int64(videoBytes)) }
            try await Task.sleep(for: .milliseconds(1200))
            preloader?.show(1)
            buffering.cancel()
            player.close()
            let next = cache.reader(for: items[1].videoURL!)
            defer { next.close() }
            let time = try await timed {
                let data = try await next.read(0..<Int64(prefix))
                precondition(data.count == prefix)
            }
            preloader?.cancel()
            await preloader?.idle()
            return time
        }
        let comparison = try await interleavedPairs(pairs: 7, baseline: { try await session(preloading: false) },
                                                    subject: { try await session(preloading: true) })
        print("  (a) next video's first 819,200 bytes after a swipe, preloader against none: "
            + "\(ms(comparison.medianSubject)) ms vs \(ms(comparison.medianBaseline)) ms, "
            + comparison.summary(.time, target: 0.05))
    }

    /// (b) The playing video's time to its first 2 MB while the preloader runs (it starts the
    /// next video's prefix once 3 s of video are held) against no preloader.
    static func playingVideo(_ items: [FeedItem], _ freshCache: () throws -> VideoCache) async throws {
        func session(preloading: Bool) async throws -> Double {
            let cache = try freshCache()
            defer { try? FileManager.default.removeItem(at: cache.directory) }
            let preloader = preloading ? FeedPreloader(videoCache: cache, imageCache: nil) : nil
            preloader?.setItems(items, current: 0)
            let player = cache.reader(for: items[0].videoURL!)
            defer { player.close() }
            var received = 0
            let time = try await timed {
                for try await chunk in player.chunks(0..<Int64(videoBytes), chunkSize: 64 * 1024) {
                    received += chunk.count
                    if received >= 2 << 20 { break }
                }
            }
            precondition(received >= 2 << 20)
            if preloading { preloadedMeanwhile.append(cache.cachedRanges(for: items[1].videoURL!).byteCount) }
            preloader?.cancel()
            await preloader?.idle()
            return time
        }
        var preloadedMeanwhile: [Int64] = []
        let comparison = try await interleavedPairs(pairs: 7, baseline: { try await session(preloading: false) },
                                                    subject: { try await session(preloading: true) })
        print("  (b) playing video's first 2 MB, preloading running against none: "
            + "\(ms(comparison.medianSubject)) ms vs \(ms(comparison.medianBaseline)) ms, "
            + comparison.summary(.time, target: 1.05))
        print("      meanwhile the preloader fetched \(Int64(median(preloadedMeanwhile.map(Double.init)))) bytes of the next video (median)")
    }

    /// (c) A profile grid of 24 animated covers (80 KB lossy/lossless and 16 KB ones, 512 KB/s
    /// per connection, 4 downloads at once): time until every cell shows its first frame,
    /// CoverPipeline's progressive frames against downloading each whole file and decoding it.
    static func covers(_ nginx: NginxOrigin, scratch: URL) async throws {
        let names = ["bench/cover-lossy-0", "bench/cover-lossy-1", "bench/cover-lossy-2", "bench/cover-lossy-3",
                     "bench/cover-lossless", "covers/cover-0", "covers/cover-1", "covers/cover-2"]
        let files = try names.map { try Data(contentsOf: fixtureURL("webp/\($0).webp")) }
        var urls: [URL] = []
        for index in 0..<24 {
            try nginx.serve(files[index % files.count], at: "/c/\(index).webp")
            urls.append(nginx.url("/c/\(index).webp"))
        }
        let slots = CoverPipeline.Configuration().maxConcurrentDownloads
        var runs = 0
        var medians = PairedComparison()
        var pausedDownloads: [Int] = []
        /// Seconds until each cover's first frame, in grid order.
        func grid(progressive: Bool) async throws -> [Double] {
            runs += 1
            let directory = scratch.appendingPathComponent("covers-\(runs)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let start = ContinuousClock.now
            if progressive {
                let images = try TwoTierCache(directory: directory)
                let pipeline = CoverPipeline(imageCache: images)
                let times = try await withThrowingTaskGroup(of: (Int, Double).self) { group in
                    for (index, url) in urls.enumerated() {
                        group.addTask {
                            blackHole(try await pipeline.firstFrame(for: url))
                            return (index, seconds(ContinuousClock.now - start))
                        }
                    }
                    return try await group.reduce(into: Array(repeating: 0, count: urls.count)) { $0[$1.0] = $1.1 }
                }
                // Untimed: the files (downloads paused after their first frame finish later)
                // must all end up whole in the cache, and must not overlap the next run.
                await pipeline.idle()
                for (index, url) in urls.enumerated() {
                    precondition(images.cachedData(for: url) == files[index % files.count], "cover \(index) not cached whole after the progressive run")
                }
                pausedDownloads.append(pipeline.statistics.pausedDownloads)
                return times
            }
            // The same transfers (one request each, `slots` at once, grid order), each file
            // decoded once it is whole.
            let origin = HTTPOrigin()
            return try await withThrowingTaskGroup(of: (Int, Double).self) { group in
                var next = 0
                var times = Array(repeating: 0.0, count: urls.count)
                func add() {
                    guard next < urls.count else { return }
                    let index = next, url = urls[index]
                    next += 1
                    group.addTask {
                        var data = Data()
                        for try await piece in try await origin.fetch(OriginRequest(url: url, range: 0..<Int64.max)).body { data.append(piece) }
                        blackHole(try WebPAnimation(data: data).frame(at: 0))
                        return (index, seconds(ContinuousClock.now - start))
                    }
                }
                for _ in 0..<slots { add() }
                while let (index, time) = try await group.next() {
                    times[index] = time
                    add()
                }
                return times
            }
        }
        let comparison = try await interleavedPairs(pairs: 7, baseline: {
            let times = try await grid(progressive: false)
            medians.baseline.append(median(times))
            return times.max() ?? 0
        }, subject: {
            let times = try await grid(progressive: true)
            medians.subject.append(median(times))
            return times.max() ?? 0
        })
        print("  (c) 24 cover first frames (\(slots) downloads at once, 512 KB/s each), progressive against whole file:")
        print("      all 24 shown: \(ms(comparison.medianSubject)) ms vs \(ms(comparison.medianBaseline)) ms, "
            + comparison.summary(.time, target: 0.5))
        // The warm-up pair is not recorded by interleavedPairs; drop it here too.
        medians.baseline.removeFirst(medians.baseline.count - comparison.baseline.count)
        medians.subject.removeFirst(medians.subject.count - comparison.subject.count)
        print("      median cell:  \(ms(medians.medianSubject)) ms vs \(ms(medians.medianBaseline)) ms, "
            + medians.summary(.time, target: 0.5))
        print("      downloads paused after their first frame (finished later by a range request): \(pausedDownloads.sorted()[pausedDownloads.count / 2]) of 24 (median); every file cached whole after each run")
    }

    /// (d) A session of 10 swipes, the viewer watching alternately 0.3 s and 1.5 s: video bytes
    /// the preloader fetched that were never played (an item leaving the window unwatched, or
    /// watched for less than its prefix), per swipe.
    static func wastedBytes(_ items: [FeedItem], _ freshCache: () throws -> VideoCache) async throws {
        let cache = try freshCache()
        defer { try? FileManager.default.removeItem(at: cache.directory) }
        let preloader = FeedPreloader(videoCache: cache, imageCache: nil)
        preloader.setItems(items, current: 0)
        let swipes = 10
        for index in 0...swipes {
            if index > 0 { preloader.show(index) }
            let player = cache.reader(for: items[index].videoURL!)
            let buffering = Task { _ = try? await player.read(0..<Int64(videoBytes)) }
            let watch = index % 2 == 0 ? 0.3 : 1.5
            try await Task.sleep(for: .milliseconds(Int(watch * 1000)))
            // What the viewer saw: the watch time at the video's bitrate.
            await preloader.playbackPosition(Int64(watch * Double(bitRate) / 8))
            buffering.cancel()
            player.close()
        }
        preloader.cancel()
        await preloader.idle()
        // Settle the books: every item leaves the window.
        preloader.setItems([], current: 0)
        let stats = preloader.statistics
        print("  (d) 10 swipes, watching 0.3 s and 1.5 s in turn: preloaded \(stats.preloadedBytes) bytes, played \(stats.playedBytes), "
            + "wasted \(stats.wastedBytes) = \(stats.wastedBytes / Int64(swipes)) bytes per swipe "
            + "(\(stats.preloadedBytes > 0 ? stats.wastedBytes * 100 / stats.preloadedBytes : 0) % of preloaded)")
    }

    static func ms(_ seconds: Double) -> String { fixed(seconds * 1000, 1) }
}
