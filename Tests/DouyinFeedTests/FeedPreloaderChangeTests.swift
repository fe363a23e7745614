import DouyinFeed
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// Issue 22 §2: the preloader listens to the video cache instead of polling it. It has no
/// clock at all, so nothing but a store can open the gate.
@Suite("FeedPreloader listens to the video cache", .hangGuard)
struct FeedPreloaderChangeTests {
    /// Also after an empty feed (what an app sets when a list is cleared), which crashed the
    /// preloader: its watch read the old current index in the new, empty items. Now nothing
    /// plays meanwhile, and the next feed starts as a first one does.
    @Test(arguments: [false, true])
    func theGateOpensOnAStoreWithNoTimer(afterAnEmptyFeed: Bool) async throws {
        let origin = try await FeedOrigin(count: 3)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let videos = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil)
        let items = origin.items()
        if afterAnEmptyFeed {
            preloader.setItems(items, current: 1)
            preloader.setItems([], current: 1)
            await preloader.playbackPosition(0)
            #expect(preloader.runningJobs.isEmpty)
        }
        preloader.setItems(items, current: 0)
        await preloader.playbackPosition(0)
        #expect(preloader.admission == .closed && preloader.runningJobs.isEmpty)

        // When the player stores the watermark (600,000 bytes: 3 s at 1.6 Mbit/s) and says
        // nothing to the preloader (no playbackPosition call)
        let player = videos.reader(for: items[0].videoURL!)
        defer { player.close() }
        _ = try await player.read(0..<600_000)

        // Then the next video's preload starts on its own: its bytes arrive in the cache
        for await content in videos.changes(for: items[1].videoURL!) where !content.ranges.isEmpty { break }
        await preloader.idle()
        #expect(origin.requests("/v/v1.mp4").count == 1)
        preloader.cancel()
    }
}
