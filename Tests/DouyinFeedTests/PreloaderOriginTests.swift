import DouyinCache
import DouyinFeed
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// An MP4-shaped file of `size` bytes: `ftyp`, then `moov` and `mdat` (or `mdat` then `moov`
/// when `moovFirst` is false), seeded random payloads.
func syntheticMP4(size: Int, moovFirst: Bool = true, moovSize: Int = 20_000, random: inout SeededRandom) -> Data {
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }
    let ftyp = box("ftyp", Array("isom\0\0\u{2}\0isomiso2avc1mp41".utf8))
    let moov = box("moov", random.bytes(moovSize - 8))
    let mdat = box("mdat", random.bytes(size - ftyp.count - moovSize - 8))
    return Data(ftyp + (moovFirst ? moov + mdat : mdat + moov))
}

/// A loopback nginx serving `count` videos (`/v/v<i>.mp4`, also under `/slow/` at 256 KB/s and
/// under `/held/`, which holds transfers until ``openHeld()``), covers and avatars, and the feed
/// items pointing at them.
final class FeedOrigin: Sendable {
    let nginx: NginxOrigin
    let videos: [Data]
    let count: Int

    /// `/held/` serves `/v/`'s files; until `/open` exists under the root, each answer sends its
    /// first 200 KB (nginx counts the head too) at once and the rest at 1 KB/s, so a preload of
    /// 819,200 bytes cannot end for over ten minutes: a test acts on a running preload when it
    /// likes (at 256 KB/s it had about 3 s, and a loaded machine has stood still for 80).
    static let locations = """
        location /slow/ { limit_rate 256k; }
        location /held/ {
            set $rate 1k;
            if (-f $document_root/open) { set $rate 0; }
            limit_rate_after 200k;
            limit_rate $rate;
            rewrite ^/held(/.*)$ $1 break;
        }
        """

    init(count: Int = 8, videoSize: Int = 3_000_000, nonFaststart: Set<Int> = [], seed: UInt64 = 15) async throws {
        nginx = try await NginxOrigin.start(extraLocations: Self.locations)
        var random = SeededRandom(seed: seed)
        var videos: [Data] = []
        for index in 0..<count {
            let video = syntheticMP4(size: videoSize, moovFirst: !nonFaststart.contains(index), random: &random)
            try nginx.serve(video, at: "/v/v\(index).mp4")
            try nginx.serve(video, at: "/slow/v/v\(index).mp4")
            try nginx.serve(Fixtures.data("webp/covers/cover-\(index % 3).webp"), at: "/c/c\(index).webp")
            try nginx.serve(Data(random.bytes(2_000)), at: "/a/a\(index).jpeg")
            videos.append(video)
        }
        self.videos = videos
        self.count = count
    }

    /// The items; their videos under `/slow/` or `/held/` when asked.
    func items(slow: Bool = false, held: Bool = false, bitRate: Int? = 1_600_000) -> [FeedItem] {
        (0..<count).map { index in
            FeedItem(
                videoURL: nginx.url((held ? "/held" : slow ? "/slow" : "") + "/v/v\(index).mp4"),
                coverURL: nginx.url("/c/c\(index).webp"),
                avatarURL: nginx.url("/a/a\(index).jpeg"),
                bitRate: bitRate,
                duration: .seconds(15)
            )
        }
    }

    /// From now on `/held/` answers at full speed (transfers already running stay slow).
    func openHeld() throws {
        try nginx.serve(Data(), at: "/open")
    }

    /// Requests for one path, in order.
    func requests(_ path: String) -> [NginxOrigin.Request] {
        nginx.requests().filter { $0.uri == path }
    }
}

@Suite("Preloader against nginx", .serialized)
struct PreloaderOriginTests {
    @Test func windowRequestsExactlyTheFirstBytesOfEachVideoAndTheImages() async throws {
        let origin = try await FeedOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory.appendingPathComponent("video"), sizeLimit: 1 << 30)
        let images = try TwoTierCache(directory: directory.appendingPathComponent("images"))
        let preloader = FeedPreloader(videoCache: videos, imageCache: images)
        preloader.setItems(origin.items(), current: 2)
        preloader.preloadWithoutPlayback()
        await preloader.idle()
        preloader.cancel()

        // Given the window around 2 (3 ahead, 1 behind): videos 3, 1, 4, 5, one request each
        // for exactly bytes 0-819199; nothing of 0, 2 (the player's), 6, 7.
        let log = origin.nginx.requests()
        for index in [1, 3, 4, 5] {
            let video = log.filter { $0.uri == "/v/v\(index).mp4" }
            #expect(video.map(\.range) == ["bytes=0-819199"], "video \(index): \(video)")
            #expect(video.first?.status == 206)
        }
        for index in [0, 2, 6, 7] {
            #expect(log.filter { $0.uri == "/v/v\(index).mp4" }.isEmpty, "video \(index) was fetched")
        }
        for index in 0..<8 {
            let expected = (1...5).contains(index) ? 1 : 0
            #expect(log.filter { $0.uri == "/c/c\(index).webp" }.count == expected, "cover \(index)")
            #expect(log.filter { $0.uri == "/a/a\(index).jpeg" }.count == expected, "avatar \(index)")
        }
        #expect(videos.cachedRanges(for: origin.nginx.url("/v/v3.mp4")) == ByteRangeSet([0..<819_200]))
        #expect(preloader.statistics.preloadedBytes == 4 * 819_200)
        #expect(preloader.statistics.imagesPreloaded == 10)

        // A second preloader over the same caches fetches nothing again.
        let again = FeedPreloader(videoCache: videos, imageCache: images)
        again.setItems(origin.items(), current: 2)
        again.preloadWithoutPlayback()
        await again.idle()
        #expect(origin.nginx.requests().count == log.count)
        #expect(again.takeEvents().allSatisfy { !$0.fetched && $0.failure == nil })
        again.cancel()
    }

    @Test func gateHoldsPreloadsBackUntilThePlayingVideoHoldsItsWatermark() async throws {
        let origin = try await FeedOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory, sizeLimit: 1 << 30)
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
        let items = origin.items()
        preloader.setItems(items, current: 0)

        // Given nothing of the playing video held: the monitor listens, nothing preloads.
        await preloader.playbackPosition(0)
        #expect(preloader.runningJobs.isEmpty && preloader.admission == .closed)
        #expect(origin.nginx.requests().isEmpty)

        // When the player holds 599,999 bytes (3 s at 1.6 Mbit/s is 600,000): still closed.
        let player = videos.reader(for: items[0].videoURL!)
        defer { player.close() }
        _ = try await player.read(0..<599_999)
        await preloader.playbackPosition(0)
        #expect(preloader.runningJobs.isEmpty)
        #expect(origin.nginx.requests().allSatisfy { $0.uri == "/v/v0.mp4" })

        // Then at the watermark exactly one preload starts, the nearest.
        _ = try await player.read(599_999..<600_000)
        await preloader.playbackPosition(0)
        let running = preloader.runningJobs
        #expect(running.count == 1)
        #expect(running.first?.url == items[1].videoURL)

        // One at a time while the playing video downloads: 1, 2, 3 in turn.
        await preloader.idle()
        let log = origin.nginx.requests()
        #expect(log.filter { $0.uri != "/v/v0.mp4" }.map(\.uri) == ["/v/v1.mp4", "/v/v2.mp4", "/v/v3.mp4"])
        preloader.cancel()
    }

    @Test(.hangGuard)
    func completePlayingVideoAllowsTwoPreloadsAtOnce() async throws {
        let origin = try await FeedOrigin(count: 6, videoSize: 1_000_000)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory, sizeLimit: 1 << 30)
        // Held: the two preloads cannot end before the test has counted them.
        var items = origin.items(held: true)
        items[0].videoURL = origin.nginx.url("/v/v0.mp4")
        // The playing video is held whole before the feed shows.
        try await videos.prefetch(items[0].videoURL!, bytes: 1_000_000)
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
        preloader.setItems(items, current: 0)
        await preloader.playbackPosition(0)
        #expect(preloader.admission == .complete)
        #expect(preloader.runningJobs.count == 2)
        preloader.cancel()
        await preloader.idle()
    }

    @Test(.hangGuard)
    func swipeCancelsWorkOutsideTheWindowAndKeepsItsBytes() async throws {
        let origin = try await FeedOrigin(count: 20)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory, sizeLimit: 1 << 30)
        // Held: the preloads get their first 200 KB at once, then cannot end before the swipe.
        let items = origin.items(held: true)
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
        preloader.setItems(items, current: 0)
        preloader.preloadWithoutPlayback()
        #expect(preloader.runningJobs.map(\.index).sorted() == [1, 2])

        // Given video 1's preload under way (a reader joining it returns once 100,000 bytes are in),
        let watcher = videos.reader(for: items[1].videoURL!)
        _ = try await watcher.read(0..<100_000)
        watcher.close()
        // when the feed jumps far away, both running preloads are cancelled,
        preloader.show(15)
        await preloader.idle()
        preloader.cancel()
        let held = videos.cachedRanges(for: items[1].videoURL!).byteCount
        // then the bytes they got stay cached,
        #expect(held >= 100_000 && held < 819_200, "held \(held)")
        let stats = preloader.statistics
        #expect(stats.cancellations == 2)
        #expect(stats.preloadedBytes >= 100_000)
        #expect(stats.wastedBytes == stats.preloadedBytes, "nothing of 1 or 2 was played")

        // and a later preload of video 1 asks only for what is missing (at full speed now).
        try origin.openHeld()
        let earlier = origin.requests("/held/v/v1.mp4").count
        var configuration = FeedPreloader.Configuration()
        configuration.planner.ahead = 1
        configuration.planner.behind = 0
        let resumed = FeedPreloader(videoCache: videos, imageCache: nil, configuration: configuration)
        resumed.setItems(items, current: 0)
        resumed.preloadWithoutPlayback()
        await resumed.idle()
        resumed.cancel()
        // (nginx logs a request when it ends: the cancelled one may be logged only now.)
        // The first preloader's own request from 100,000 (when the watcher's read listed the
        // first 100,000 bytes before the job's download) can be logged late too, so every later
        // request is checked, not their count: none asks again for a byte held.
        let later = origin.requests("/held/v/v1.mp4").dropFirst(earlier).map(\.range).filter { $0 != "bytes=0-819199" }
        let starts = later.map { Int($0.dropFirst(6).prefix { $0 != "-" }) ?? 0 }
        #expect(!later.isEmpty && starts.allSatisfy { $0 >= 100_000 } && later.allSatisfy { $0.hasSuffix("-819199") }, "\(later)")
        #expect(videos.cachedRanges(for: items[1].videoURL!) == ByteRangeSet([0..<819_200]))
    }

    @Test func nonFaststartVideoGetsItsMoovTail() async throws {
        let origin = try await FeedOrigin(count: 3, videoSize: 2_000_000, nonFaststart: [1])
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory, sizeLimit: 1 << 30)
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
        preloader.setItems(origin.items(), current: 0)
        preloader.preloadWithoutPlayback()
        await preloader.idle()
        preloader.cancel()
        // Video 1 is ftyp (32) + mdat + moov (20,000 bytes at the end): its tail is fetched too.
        #expect(origin.requests("/v/v1.mp4").map(\.range) == ["bytes=0-819199", "bytes=1980000-1999999"])
        #expect(origin.requests("/v/v2.mp4").map(\.range) == ["bytes=0-819199"], "faststart: no tail")
        #expect(videos.cachedRanges(for: origin.items()[1].videoURL!) == ByteRangeSet([0..<819_200, 1_980_000..<2_000_000]))
    }

    @Test func realNonFaststartFixtureGetsItsMoovTail() async throws {
        let nginx = try await NginxOrigin.start()
        try nginx.serve(Fixtures.data("feed/moov-at-end.mp4"), at: "/m.mp4")
        try nginx.serve(Fixtures.data("video/clip.mp4"), at: "/f.mp4")
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory, sizeLimit: 1 << 30)
        var configuration = FeedPreloader.Configuration()
        configuration.planner.prefixBytes = 65_536
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil, configuration: configuration)
        let items = [FeedItem(videoURL: nginx.url("/f.mp4")), FeedItem(videoURL: nginx.url("/m.mp4")), FeedItem(videoURL: nginx.url("/f.mp4"))]
        preloader.setItems(items, current: 0)
        preloader.preloadWithoutPlayback()
        await preloader.idle()
        preloader.cancel()
        // moov-at-end.mp4: ftyp 32 + mdat 252,557, moov from 252,589 to the end (259,395).
        #expect(nginx.requests().filter { $0.uri == "/m.mp4" }.map(\.range) == ["bytes=0-65535", "bytes=252589-259394"])
    }

    @Test func concurrentSwipesLeaveNothingRunning() async throws {
        let origin = try await FeedOrigin(count: 30, videoSize: 1_000_000)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.url
        let videos = try VideoCache(directory: directory.appendingPathComponent("video"), sizeLimit: 1 << 30)
        let images = try TwoTierCache(directory: directory.appendingPathComponent("images"))
        let preloader = FeedPreloader(videoCache: videos, imageCache: images)
        let items = origin.items(slow: true)
        preloader.setItems(items, current: 0)
        preloader.preloadWithoutPlayback()
        var random = SeededRandom(seed: 0x5713E)
        let swipes = (0..<200).map { _ in Int.random(in: 0..<30, using: &random) }
        await withTaskGroup(of: Void.self) { group in
            for chunk in stride(from: 0, to: swipes.count, by: 50) {
                let part = swipes[chunk..<chunk + 50]
                group.addTask {
                    for index in part {
                        preloader.show(index)
                        await preloader.playbackPosition(Int64(index))
                        await Task.yield()
                    }
                }
            }
        }
        preloader.cancel()
        await preloader.idle()
        let stats = preloader.statistics
        #expect(stats.playedBytes + stats.wastedBytes <= stats.preloadedBytes, "\(random)")
        // Every preloaded byte is really in the cache: nothing counted that was not kept.
        let held = items.reduce(Int64(0)) { $0 + videos.cachedRanges(for: $1.videoURL!).byteCount }
        #expect(stats.preloadedBytes <= held, "\(random)")
    }
}
