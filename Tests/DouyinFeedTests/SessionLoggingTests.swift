import DouyinFeed
import DouyinLogging
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Issue 26 §3: the feed session's log hook, against nginx: what it decides, and its video
/// cache's downloads, on one hook.
@Suite("Feed session logging", .serialized)
struct SessionLoggingTests {
    @Test func showsFetchesAndAFailedFetchReachTheSessionsHookWithTheCachesDownloads() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let nginx = try await NginxOrigin.start()
        try nginx.serve(Data(repeating: 1, count: 300_000), at: "/v/0.mp4")
        // Item 0 is served; items 1 and 2 are not (nginx answers 404).
        let urls = [nginx.url("/v/0.mp4"), nginx.url("/missing/1.mp4"), nginx.url("/missing/2.mp4")]
        let items = urls.map { SessionItem(playURL: nil, gears: [Gear(url: $0, bitRate: 1_000_000)], duration: .seconds(3)) }
        // Every event is kept, and also streamed so the test can await the one it needs.
        let recorder = LogRecorder()
        let (stream, continuation) = AsyncStream.makeStream(of: LogEvent.self)
        let record = recorder.handler
        var configuration = FeedSession.Configuration()
        configuration.log = LogHandler { event in
            record(event)
            continuation.yield(event)
        }
        let session = try FeedSession(items: items, directory: folder.appending("cache"), configuration: configuration)
        defer { session.cancel() }

        // When: item 0 is shown and plays; the preload of a missing item fails.
        session.show(0)
        await session.playbackPosition(0)
        for await event in stream where event.message == "fetch failed" { break }
        continuation.finish()

        // Then: the session's decisions and the cache's downloads are on the one hook.
        let shown = try #require(recorder.events("item shown").first)
        #expect(shown.subsystem == "DouyinFeed.FeedSession" && shown.metadata == ["index": "0"])
        let started = recorder.events("fetch started")
        #expect(started.contains { $0.metadata["index"] == "0" && $0.metadata["lane"] == "playing" }, "\(started)")
        let failed = try #require(recorder.events("fetch failed").first)
        #expect(failed.level == .notice && failed.metadata["index"] != "0", "\(failed)")
        #expect(failed.metadata["error"]?.contains("404") == true, "\(failed)")
        // A fetch says it started before it says it failed (its own task says both).
        let all = recorder.events
        let failedAt = try #require(all.firstIndex { $0.message == "fetch failed" })
        #expect(all[..<failedAt].contains {
            $0.message == "fetch started" && $0.metadata["index"] == failed.metadata["index"] && $0.metadata["url"] == failed.metadata["url"]
        }, "\(all.map(\.message))")
        #expect(recorder.events.contains { $0.subsystem.hasPrefix("DouyinVideoCache") && $0.message == "download started" })
        // Counted when the fetch's lane is freed, after its log line (and after its start-bytes
        // watcher has ended): waited for, not read at once.
        #expect(await waitUntil { session.statistics.failedFetches >= 1 })
    }

    @Test func noHookIsTheDefault() {
        #expect(FeedSession.Configuration().log == nil)
    }
}
