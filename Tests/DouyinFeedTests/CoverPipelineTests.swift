import DouyinCache
import DouyinFeed
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import DouyinWebP
import Foundation
import Testing

@Suite("Cover pipeline against nginx", .serialized)
struct CoverPipelineTests {
    static func pipeline(_ folder: TemporaryDirectory, maxDownloads: Int = 4,
                         origin: any VideoOrigin = URLSessionOrigin()) throws -> (CoverPipeline, TwoTierCache) {
        let images = try TwoTierCache(directory: folder.appending("images"))
        var configuration = CoverPipeline.Configuration()
        configuration.maxConcurrentDownloads = maxDownloads
        return (try CoverPipeline(imageCache: images, origin: origin, configuration: configuration), images)
    }

    @Test func firstFrameArrivesWhileTheFileIsStillDownloading() async throws {
        // 16 KB/s: the 80 KB cover takes about 5 s, its first frame a tenth of that.
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 16k; }")
        let file = try Fixtures.data("webp/bench/cover-lossy-0.webp")
        try nginx.serve(file, at: "/slow/cover.webp")
        try await withTemporaryDirectory { folder in
            let (covers, images) = try Self.pipeline(folder)
            let url = nginx.url("/slow/cover.webp")

            let frame = try await covers.firstFrame(for: url)

            // Whether the rest of the file had arrived by then depends on load (the download goes
            // on after the frame), so only the pipeline's own count is checked here; the demo and
            // the benchmark measure the time.
            _ = images
            #expect(covers.statistics.progressiveFirstFrames == 1)
            let whole = try WebPAnimation(data: file).frame(at: 0)
            #expect(frame == whole, "the progressive frame equals the whole file's first frame")
        }
    }

    @Test func oneDownloadPerURLHoweverManyCellsAsk() async throws {
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 64k; }")
        try nginx.serve(try Fixtures.data("webp/bench/cover-lossy-1.webp"), at: "/slow/c.webp")
        try await withTemporaryDirectory { folder in
            let (covers, _) = try Self.pipeline(folder)
            let url = nginx.url("/slow/c.webp")
            let frames = try await withThrowingTaskGroup(of: WebPCanvasFrame.self) { group in
                for _ in 0..<12 { group.addTask { try await covers.firstFrame(for: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(frames.count == 12 && Set(frames).count == 1)
            // (The frames come before the file ends, so nginx has not logged the request yet.)
            #expect(covers.statistics.downloads == 1)
            #expect(covers.statistics.progressiveFirstFrames == 1)
        }
    }

    @Test func cachedCoverIsDecodedWithoutARequest() async throws {
        let nginx = try await NginxOrigin.start()
        let file = try Fixtures.data("webp/covers/cover-2.webp")
        try nginx.serve(file, at: "/c.webp")
        try await withTemporaryDirectory { folder in
            let (covers, images) = try Self.pipeline(folder)
            let url = nginx.url("/c.webp")
            try images.store(file, for: url)
            let frame = try await covers.firstFrame(for: url)
            #expect(frame == (try WebPAnimation(data: file).frame(at: 0)))
            #expect(nginx.requests().isEmpty)
            #expect(covers.statistics.cachedFirstFrames == 1)
        }
    }

    @Test(.hangGuard)
    func cellThatGoesAwayCancelsOnlyItsOwnWait() async throws {
        let nginx = try await NginxOrigin.start()
        try nginx.serve(try Fixtures.data("webp/bench/cover-lossy-2.webp"), at: "/c.webp")
        let url = nginx.url("/c.webp")
        // The download's fetch is held at a gate until the leaving cell's wait has ended, so no
        // frame can come before both cells wait and one has left, however long a loaded machine
        // stands still (an 8 KB/s origin gave them about 1 s, and a whole-suite run took longer).
        // Were the wait never to end, the gate opens after the bound and the frame then reaching
        // the leaving cell fails the test (rather than hanging it).
        let gate = OriginGate(holding: url)
        try await withTemporaryDirectory { folder in
            let (covers, _) = try Self.pipeline(folder, origin: GatedOrigin(gate: gate))
            // Given two cells waiting on one cover,
            let leaving = Task { try await covers.firstFrame(for: url) }
            let staying = Task { try await covers.firstFrame(for: url) }
            // (both joined: one leaving alone first would rightly abandon the download, and the
            // other would start a second one)
            guard await waitUntil({ covers.waiterCount(for: url) == 2 }) else {
                Issue.record("the two cells never both waited (\(covers.waiterCount(for: url)) waiting)")
                await gate.open()
                return
            }
            // when one goes away,
            leaving.cancel()
            _ = await waitUntil { covers.waiterCount(for: url) == 1 }
            await gate.open()
            // then it alone stops waiting; the other still gets the frame.
            await #expect(throws: CancellationError.self) { try await leaving.value }
            let frame = try await staying.value
            #expect(frame.width > 0)
            #expect(covers.statistics.downloads == 1)
        }
    }

    @Test func lastCellLeavingStopsTheDownload() async throws {
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 4k; }")
        try nginx.serve(try Fixtures.data("webp/bench/cover-lossy-3.webp"), at: "/slow/c.webp")
        try await withTemporaryDirectory { folder in
            let (covers, images) = try Self.pipeline(folder)
            let url = nginx.url("/slow/c.webp")
            let waiter = Task { try await covers.firstFrame(for: url) }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(images.cachedData(for: url) == nil)
            // The next request starts a fresh download (the old one was abandoned, not joined).
            let frame = try await covers.firstFrame(for: nginx.url("/slow/c.webp"))
            #expect(frame.width > 0)
        }
    }

    @Test func missingCoverFailsWithTheStatus() async throws {
        let nginx = try await NginxOrigin.start()
        try await withTemporaryDirectory { folder in
            let (covers, _) = try Self.pipeline(folder)
            await #expect(throws: CoverPipeline.CoverError.self) { try await covers.firstFrame(for: nginx.url("/none.webp")) }
        }
    }

    @Test func hostileBytesFailAsUndecodable() async throws {
        let nginx = try await NginxOrigin.start()
        var random = SeededRandom(seed: 404)
        try nginx.serve(Data(random.bytes(50_000)), at: "/junk.webp")
        try await withTemporaryDirectory { folder in
            let (covers, _) = try Self.pipeline(folder)
            await #expect(throws: CoverPipeline.CoverError.self, "\(random)") { try await covers.firstFrame(for: nginx.url("/junk.webp")) }
        }
    }

    /// Pins: `maxConcurrentDownloads` 0 was clamped to 1 at use, in silence.
    @Test func configurationOutOfRangeIsRefusedNamingTheField() throws {
        let images = TwoTierCache(disk: nil)
        var configuration = CoverPipeline.Configuration()
        configuration.maxConcurrentDownloads = 0
        #expect(throws: CoverPipeline.CoverError.configurationOutOfRange(field: "maxConcurrentDownloads", value: "0", allowed: "1 or more")) {
            _ = try CoverPipeline(imageCache: images, configuration: configuration)
        }
        configuration = CoverPipeline.Configuration()
        configuration.maxCanvasPixels = 0
        #expect(throws: CoverPipeline.CoverError.configurationOutOfRange(field: "maxCanvasPixels", value: "0", allowed: "1 or more pixels")) {
            _ = try CoverPipeline(imageCache: images, configuration: configuration)
        }
    }
}
