import DouyinFeed
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// Issue 22 §3: `FeedPreloader.idle()` waits through DouyinSupport's `IdleWaiters`, so a caller
/// whose task is cancelled stops waiting at once; before, it waited on a continuation nothing
/// but the end of every job resumed.
@Suite("FeedPreloader.idle()", .hangGuard)
struct FeedPreloaderIdleTests {
    @Test func aCancelledIdleReturnsWhileJobsStillRun() async throws {
        // Given preloads of 819,200 bytes each from an origin sending 1 KB/s (13 minutes a job)
        let nginx = try await NginxOrigin.start(extraLocations: "location /stall/ { limit_rate 1k; }")
        var random = SeededRandom(seed: 26)
        for index in 0..<3 {
            try nginx.serve(Data(random.bytes(900_000)), at: "/stall/v\(index).mp4")
        }
        try await withTemporaryDirectory { folder in
            let videos = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
            let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
            let items = (0..<3).map { FeedItem(videoURL: nginx.url("/stall/v\($0).mp4"), bitRate: 1_600_000, duration: .seconds(15)) }
            preloader.setItems(items, current: 0)
            preloader.preloadWithoutPlayback()
            #expect(preloader.runningJobs.count == 2)

            // When a caller of idle() is cancelled
            let waiter = Task { await preloader.idle() }
            waiter.cancel()
            await waiter.value

            // Then it has returned although both jobs still run (the old idle() hung here
            // until the suite's time limit)
            #expect(preloader.runningJobs.count == 2)

            // And after cancel() an idle() returns once the jobs have ended
            preloader.cancel()
            await preloader.idle()
            #expect(preloader.runningJobs.isEmpty)
        }
    }
}
