import DouyinBackendLauncher
import DouyinKit
import DouyinSupport
import Foundation

/// `douyinkit demo`: the package's main jobs end to end on Fixtures/, nothing to set up.
enum Demo {
    static func run() async throws {
        let fixtures = try FixturesFolder.locate()
        // Each section's output leaves as the section ends, in a pipe too (which is fully
        // buffered): a demo ended by a harness's time limit then shows the section it stood in.
        func section(_ body: () async throws -> Void) async rethrows {
            try await body()
            fflush(nil)
        }
        try await section { try showFeed(fixtures) }
        try await section { try await showCache(fixtures) }
        try await section { try await showCovers(fixtures) }
        try await section { try await showVideo(fixtures) }
        try await section { try await ProxyDemo.run() }
        try await section { try await FeedDemo.run(fixtures) }
        try await section { try await SessionDemo.run(fixtures) }
        try await section { try showGifts(fixtures) }
        try await section { try await showAPI(fixtures) }
        await section { ChatDemo.run() }
        try await section { try await ChatDemo.runRealtime(fixtures) }
    }

    /// Decodes every cover through the decode queues at once, as a profile grid would: per
    /// cover, when its first frame arrived and when its last did; then a first frame from a
    /// cover's first bytes, as while its download is still running.
    static func showCovers(_ fixtures: URL) async throws {
        let folders = ["webp/covers", "webp/bench"].map { fixtures.appendingPathComponent($0) }
        let files = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0) }
        }
        let animations = try files.map { try WebPAnimation(data: Data(contentsOf: $0)) }
        let queues = WebPDecodeQueues()
        print("\n== Animated WebP covers: \(files.count) covers through WebPDecodeQueues at once "
            + "(\(queues.configuration.maxConcurrentDecodes) decodes at a time)")
        let clock = ContinuousClock()
        let start = clock.now
        let requests = queues.decode(animations)
        let times = try await withThrowingTaskGroup(of: (Int, Duration, Duration).self) { group in
            for (number, request) in requests.enumerated() {
                group.addTask {
                    var first: Duration?
                    for try await _ in request.frames where first == nil { first = clock.now - start }
                    return (number, first ?? .zero, clock.now - start)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = ($1.1, $1.2) }
        }
        for (number, file) in files.enumerated() {
            let animation = animations[number]
            let (first, total) = times[number] ?? (.zero, .zero)
            print("  \(file.deletingLastPathComponent().lastPathComponent)/\(file.lastPathComponent): \(animation.frames.count) frames "
                + "\(animation.canvasWidth)×\(animation.canvasHeight), first frame at \(decimalMilliseconds(first)) ms, all at \(decimalMilliseconds(total)) ms")
        }
        let cover = try Data(contentsOf: files.last { $0.lastPathComponent.hasPrefix("cover-lossy") } ?? files[0])
        var length = 0
        while try WebPAnimation.firstFrame(ofPartialData: cover.prefix(length)) == nil, length < cover.count { length += 1024 }
        print("  a download in progress shows its first frame after \(length) of \(cover.count) bytes "
            + "(\(length * 100 / cover.count) %)")
    }

    static func decimalMilliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", duration.inSeconds * 1000)
    }

    /// Fetches every Fixtures cover through a fresh cache from a `file://` origin, twice.
    static func showCache(_ fixtures: URL) async throws {
        let covers = try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("webp/covers").path).sorted()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        print("\n== Two-tier cache: \(covers.count) covers from a file:// origin, fetched twice (cache in \(directory.path))")
        for pass in 1...2 {
            // file:// only by this switch: the demo makes these URLs itself.
            let cache = try TwoTierCache(directory: directory, configuration: .init(downloader: .init(allowsFileURLs: true)))  // pass 2: disk only
            for name in covers {
                let url = fixtures.appendingPathComponent("webp/covers").appendingPathComponent(name)
                let first = try await cache.fetch(url)
                let again = try await cache.fetch(url)
                print("  pass \(pass) \(name): \(first.data.count) bytes from \(first.source.rawValue), then \(again.source.rawValue)")
            }
        }
    }

    /// Plays Fixtures/video/clip.mp4 through the video cache from a throttled file origin: the
    /// first pass streams from the "network", the second (a fresh cache) from disk.
    static func showVideo(_ fixtures: URL) async throws {
        let clip = fixtures.appendingPathComponent("video/clip.mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-video-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = FileOrigin(bytesPerSecond: 200_000, chunkSize: 16 * 1024)  // a slow 1.6 Mbit/s link
        print("\n== Video cache: Fixtures/video/clip.mp4 over a simulated 1.6 Mbit/s link, played twice")
        for pass in 1...2 {
            let cache = try VideoCache(directory: directory, sizeLimit: 64 << 20, origin: origin)
            let reader = cache.reader(for: clip)
            let clock = ContinuousClock()
            let start = clock.now
            // As a player does: the length first (two bytes), then the bytes in order.
            let length = try await reader.contentInfo().length ?? 0
            var played: Int64 = 0
            var firstChunk: Duration?
            for try await chunk in reader.chunks(0..<length, chunkSize: 32 * 1024) {
                if firstChunk == nil { firstChunk = clock.now - start }
                played += Int64(chunk.count)
                progressBar(pass: pass, done: played, total: length)
            }
            reader.close()
            Progress.clear()
            let elapsed = clock.now - start
            print("  pass \(pass): \(played) bytes in \(milliseconds(elapsed)) ms, first bytes after \(milliseconds(firstChunk ?? elapsed)) ms, "
                + "origin sent \(cache.statistics.originBytes) bytes")
        }
    }

    /// Redraws one line on stderr, `[#####.....]  42 %`, and only when stderr is a terminal: in
    /// a log or a pipe the `\r` redraws are noise, and on stdout they came before the headers.
    static func progressBar(pass: Int, done: Int64, total: Int64) {
        guard Progress.isShown else { return }
        let width = 30
        let filled = total > 0 ? Int(done * Int64(width) / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = total > 0 ? done * 100 / total : 100
        Progress.redraw("  pass \(pass) [\(bar)] \(percent) %")
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.wholeMilliseconds
    }

    static func showGifts(_ fixtures: URL) throws {
        let script = try GiftScript(parsing: String(contentsOf: fixtures.appendingPathComponent("gift/combo.script"), encoding: .utf8))
        print("\n== Live-room gifts (Fixtures/gift/combo.script), 2 tracks, 3 s combo window")
        for event in try script.run(GiftComboEngine.Configuration(tracks: 2)) where event.kind != .firstDisplay {
            print("  \(event)")
        }
    }

    static func showFeed(_ fixtures: URL) throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("api/feed.json"))
        let page = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data).page()
        print("== Feed (Fixtures/api/feed.json): \(page.items.count) videos, has_more=\(page.hasMore)")
        for aweme in page.items {
            let author = aweme.author?.nickname ?? "uid \(aweme.authorUserID ?? "?")"
            let seconds = aweme.video?.duration.map { String(format: "%.1f", Double($0) / 1000) } ?? "?"
            // Counts the response left out print as "?" (DouyinModels: only identity is required).
            let counts = aweme.statistics ?? AwemeStatistics()
            func shown(_ count: Int?) -> String { count.map(String.init) ?? "?" }
            print("  \(author) — \"\(aweme.desc)\"")
            print("    \(shown(counts.diggCount)) likes · \(shown(counts.commentCount)) comments · "
                + "\(shown(counts.shareCount)) shares · \(seconds) s · music \"\(aweme.music?.title ?? "none")\"")
            for extra in aweme.textExtra {
                if let text = aweme.text(of: extra) { print("    tag: \(text)") }
            }
        }
    }
}

/// The package's Fixtures, from DouyinBackendLauncher's resource bundle: the demo runs from
/// any working directory, with no source checkout needed beside the built products.
enum FixturesFolder {
    static func locate() throws -> URL {
        let fixtures = LocalBackend.fixtures
        guard FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("api/feed.json").path) else {
            throw ToolError.failed("\(fixtures.path) holds no api/feed.json: the tool's resource bundle is incomplete; build it again")
        }
        return fixtures
    }
}
