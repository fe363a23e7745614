import DouyinFeed
import DouyinLogging
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// Issue 26 §3: the preloader tells a log hook about each job, with the bytes it holds.
@Suite("FeedPreloader logging", .hangGuard)
struct FeedPreloaderLoggingTests {
    @Test func eachPreloadFromNginxIsLoggedWithItsBytes() async throws {
        let origin = try await FeedOrigin(count: 3)
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            let videos = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
            var configuration = FeedPreloader.Configuration()
            configuration.log = recorder.handler
            let preloader = FeedPreloader(videoCache: videos, imageCache: nil, configuration: configuration)
            let items = origin.items()
            preloader.setItems(items, current: 0)
            preloader.preloadWithoutPlayback()
            await preloader.idle()
            preloader.cancel()

            // Items 1 and 2 are the window ahead of 0: one start and one end each.
            let expected = Set([items[1], items[2]].compactMap { $0.videoURL?.absoluteString })
            #expect(Set(recorder.events("job started").compactMap { $0.metadata["url"] }) == expected)
            let ended = recorder.events("job ended")
            #expect(Set(ended.compactMap { $0.metadata["url"] }) == expected)
            #expect(ended.allSatisfy { $0.metadata["bytes"] == "819200" && $0.metadata["fetched"] == "true" }, "\(ended)")
            #expect(ended.allSatisfy { $0.subsystem == "DouyinFeed.FeedPreloader" && $0.level == .info })
        }
    }
}
