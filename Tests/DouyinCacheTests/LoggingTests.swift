import DouyinCache
import DouyinLogging
import DouyinTestSupport
import Foundation
import Testing

/// Issue 26 §3: the two-tier cache's downloader tells a log hook about each real download.
@Suite("Cache logging")
struct CacheLoggingTests {
    @Test func aDownloadFromNginxIsLoggedStartedThenEndedWithItsBytes() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(repeating: 7, count: 12_345), at: "/c.webp")
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            let cache = try TwoTierCache(directory: folder.url, configuration: .init(downloader: .init(log: recorder.handler)))
            let url = origin.url("/c.webp")
            _ = try await cache.data(for: url)
            _ = try await cache.data(for: url)  // from memory: no download, no event

            #expect(recorder.events.map(\.message) == ["download started", "download ended"])
            let ended = try #require(recorder.events("download ended").first)
            #expect(ended.level == .info && ended.subsystem == "DouyinCache.Downloader")
            #expect(ended.metadata == ["url": url.absoluteString, "bytes": "12345"])
            #expect(ended.description == "info DouyinCache.Downloader: download ended bytes=12345 url=\(url.absoluteString)")
        }
    }

    @Test func aFailedDownloadIsLoggedAsAnError() async throws {
        let origin = try await NginxOrigin.start()
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            let cache = try TwoTierCache(directory: folder.url, configuration: .init(downloader: .init(log: recorder.handler)))
            await #expect(throws: CacheError.self) { try await cache.data(for: origin.url("/missing.webp")) }
            let failed = try #require(recorder.events("download failed").first)
            #expect(failed.level == .error)
            #expect(failed.metadata["error"]?.contains("404") == true, "\(failed)")
        }
    }

    @Test func handlersCompareByIdentitySoConfigurationsStayHashable() {
        let one = LogHandler { _ in }, other = LogHandler { _ in }
        #expect(Downloader.Configuration(log: one) == Downloader.Configuration(log: one))
        #expect(Downloader.Configuration(log: one) != Downloader.Configuration(log: other))
        #expect(Downloader.Configuration() == Downloader.Configuration(log: nil))
    }
}
