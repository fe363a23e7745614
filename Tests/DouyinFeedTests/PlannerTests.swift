import DouyinFeed
import DouyinModels
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// Items 0..<n with distinct video, cover and avatar URLs; bitrate 1.6 Mbit/s (200 KB/s).
func feedItems(_ count: Int, bitRate: Int? = 1_600_000) -> [FeedItem] {
    (0..<count).map { index in
        FeedItem(
            videoURL: URL(string: "http://o.test/v\(index).mp4"),
            coverURL: URL(string: "http://o.test/c\(index).webp"),
            avatarURL: URL(string: "http://o.test/a\(index).jpeg"),
            bitRate: bitRate,
            duration: .seconds(12)
        )
    }
}

@Suite("Preload planner")
struct PlannerTests {
    typealias Job = PreloadPlanner.Job

    @Test func windowIsThreeAheadOneBehindNearestFirst() {
        #expect(PreloadPlanner.window(current: 5, count: 20) == [5, 6, 4, 7, 8])
    }

    @Test func windowStopsAtTheEnds() {
        #expect(PreloadPlanner.window(current: 0, count: 20) == [0, 1, 2, 3])
        #expect(PreloadPlanner.window(current: 19, count: 20) == [19, 18])
        #expect(PreloadPlanner.window(current: 1, count: 2) == [1, 0])
        #expect(PreloadPlanner.window(current: 3, count: 2) == [])
        #expect(PreloadPlanner.window(current: 0, count: 0) == [])
    }

    /// Issue 21 item 6: a window option of 2^62 (or Int.max) looped once per unit, for ever;
    /// clamped to the feed, it costs one step per item.
    @Test(.hangGuard)
    func aHugeWindowIsClampedToTheFeedAndNeitherLoopsNorOverflows() {
        for huge in [1 << 62, Int.max] {
            var configuration = PreloadPlanner.Configuration()
            configuration.ahead = huge
            configuration.behind = huge
            #expect(PreloadPlanner.window(current: 2, count: 5, configuration: configuration) == [2, 3, 1, 4, 0])
            #expect(PreloadPlanner.jobs(items: feedItems(5), current: 2, configuration: configuration).count == 4 + 5 * 2)
        }
        var none = PreloadPlanner.Configuration()
        none.ahead = 0
        none.behind = 0
        #expect(PreloadPlanner.window(current: 2, count: 5, configuration: none) == [2])
    }

    @Test func windowFollowsTheConfiguration() {
        var configuration = PreloadPlanner.Configuration()
        configuration.ahead = 1
        configuration.behind = 3
        #expect(PreloadPlanner.window(current: 5, count: 20, configuration: configuration) == [5, 6, 4, 3, 2])
        configuration.ahead = -4
        configuration.behind = 0
        #expect(PreloadPlanner.window(current: 5, count: 20, configuration: configuration) == [5])
    }

    @Test func jobsAreEachVideosFirstBytesThenCoverAndAvatarNearestFirst() {
        let items = feedItems(10)
        let jobs = PreloadPlanner.jobs(items: items, current: 2)
        let described = jobs.map { "\($0.kind) \($0.index)" }
        #expect(described == [
            "cover 2", "avatar 2",
            "videoPrefix 3", "cover 3", "avatar 3",
            "videoPrefix 1", "cover 1", "avatar 1",
            "videoPrefix 4", "cover 4", "avatar 4",
            "videoPrefix 5", "cover 5", "avatar 5",
        ])
        #expect(jobs.filter { $0.kind == .videoPrefix }.allSatisfy { $0.range == 0..<819_200 })
        #expect(!jobs.contains { $0.kind == .videoPrefix && $0.index == 2 }, "the playing video is the player's")
    }

    @Test func prefixFromBitrateWhenADurationIsConfigured() {
        var configuration = PreloadPlanner.Configuration()
        configuration.prefixDuration = .seconds(5)
        #expect(PreloadPlanner.prefixLength(of: feedItems(1)[0], configuration: configuration) == 1_000_000)
        #expect(PreloadPlanner.prefixLength(of: feedItems(1, bitRate: nil)[0], configuration: configuration) == 819_200)
        #expect(PreloadPlanner.prefixLength(of: feedItems(1)[0]) == 819_200, "default: 819,200 bytes")
        configuration.prefixBytes = 0
        configuration.prefixDuration = nil
        #expect(PreloadPlanner.prefixLength(of: feedItems(1)[0], configuration: configuration) == 1)
    }

    @Test func watermarkIsThreeSecondsFromBitrateElseLengthElseWholeFile() {
        let item = feedItems(1)[0]
        #expect(PreloadPlanner.watermarkBytes(of: item, length: nil) == 600_000)
        let noRate = feedItems(1, bitRate: nil)[0]  // 12 s long
        #expect(PreloadPlanner.watermarkBytes(of: noRate, length: 2_400_000) == 600_000)
        #expect(PreloadPlanner.watermarkBytes(of: noRate, length: nil) == nil)
        let unknown = FeedItem(videoURL: URL(string: "http://o.test/x.mp4"))
        #expect(PreloadPlanner.watermarkBytes(of: unknown, length: 5_000_000) == nil)
    }

    @Test func knownTailFollowsItsPrefix() {
        let items = feedItems(4)
        let url = items[1].videoURL!
        let jobs = PreloadPlanner.jobs(items: items, current: 0, tails: [url: 2_000_000..<2_100_000])
        let index = jobs.firstIndex { $0.kind == .videoPrefix && $0.index == 1 }!
        #expect(jobs[index + 1] == Job(index: 1, kind: .videoTail, url: url, range: 2_000_000..<2_100_000))
    }

    @Test func itemsWithoutURLsGetNoJobs() {
        let items = [FeedItem(videoURL: nil), FeedItem(videoURL: nil, coverURL: URL(string: "http://o.test/c.webp"))]
        let jobs = PreloadPlanner.jobs(items: items, current: 0)
        #expect(jobs.map(\.kind) == [.cover])
    }

    @Test func itemsFromFeedJSONReadTheBitrate() throws {
        let data = try Fixtures.data("api/feed-large.json")
        let items = try FeedItem.items(fromFeedJSON: data)
        #expect(items.count > 2)
        #expect(items[0].bitRate == 1_000_010)
        #expect(items[0].duration == .milliseconds(9_370))
        #expect(items[0].avatarURL != nil && items[0].coverURL != nil && items[0].videoURL != nil)
    }

    @Test func bitrateComesFromTheModelsVideoBitRate() throws {
        var json = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("api/feed-large.json")) as? [String: Any])
        var awemes = try #require(json["data"] as? [[String: Any]])
        var video = try #require(awemes[1]["video"] as? [String: Any])
        video["bit_rate"] = [["bit_rate": "1500000", "gear_name": "normal"], ["bit_rate": 700_000]]
        awemes[1]["video"] = video
        awemes[2]["video"] = ["duration": 1000]
        json["data"] = awemes
        let items = try FeedItem.items(fromFeedJSON: try JSONSerialization.data(withJSONObject: json))
        // A digit string is read; the first level is the one played; none sent means unknown.
        #expect(items[1].bitRate == 1_500_000)
        #expect(items[2].bitRate == nil)
        #expect(items[0].bitRate == 1_000_010 && items[3].bitRate == 1_000_013)
        // An explicit bitrate wins over the aweme's.
        let aweme = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed-large.json")).data?[0]
        #expect(FeedItem(aweme: try #require(aweme), bitRate: 42).bitRate == 42)
    }

    @Test func aBitrateOfTheWrongTypeIsADecodingErrorNamingItsPath() throws {
        var json = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("api/feed-large.json")) as? [String: Any])
        var awemes = try #require(json["data"] as? [[String: Any]])
        var video = try #require(awemes[1]["video"] as? [String: Any])
        video["bit_rate"] = "oops"
        awemes[1]["video"] = video
        json["data"] = awemes
        let error = try #require(throws: DecodingError.self) {
            try FeedItem.items(fromFeedJSON: try JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.jsonPath == "data[1].video.bit_rate")
    }
}
