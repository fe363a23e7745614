import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// ffmpeg as the player: what it decodes through the proxy equals what it decodes from the
/// origin, a seek included, and after one pass the same decode comes from the cache alone with
/// the origin stopped and the server restarted.
@Suite("Proxy with ffmpeg as the player", .serialized)
struct ProxyPlayerTests {
    static let kinds = [TestMedia.faststartMP4, TestMedia.moovAtEndMP4, TestMedia.tsPlaylist, TestMedia.fmp4Playlist,
                        TestMedia.byteRangePlaylist, TestMedia.masterPlaylist]

    @Test(arguments: kinds)
    func aDecodeThroughTheProxyEqualsTheOriginsAndReplaysOffline(_ path: String) async throws {
        // Given: the media on nginx, a proxy over an empty cache.
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await TestMedia.make(in: nginx.root)
        let origin = nginx.url("/" + path)
        let expected = try await TestMedia.framemd5(nginx.root.appendingPathComponent(path).path)
        #expect(expected.count >= 100)

        // When: ffmpeg decodes through the proxy, whole and from a seek.
        let server = VideoProxyServer(cache: try VideoCache(directory: folder.url, sizeLimit: 1 << 30))
        try server.start()
        let proxied = server.url(for: origin)!.absoluteString
        let whole = try await TestMedia.framemd5(proxied)
        let seekExpected = try await TestMedia.framemd5(nginx.root.appendingPathComponent(path).path, seek: 2.2, frames: 10)
        let seek = try await TestMedia.framemd5(proxied, seek: 2.2, frames: 10)
        await server.stop()

        // Then: the same frames; and offline, from a new cache and server on the same folder,
        // the same again with no origin byte.
        #expect(whole == expected)
        #expect(seek == seekExpected)
        #expect(server.statistics.bytesFromOrigin > 0)
        nginx.stop()
        let offline = VideoProxyServer(cache: try VideoCache(directory: folder.url, sizeLimit: 1 << 30))
        try offline.start()
        let replay = try await TestMedia.framemd5(offline.url(for: origin)!.absoluteString)
        await offline.stop()
        #expect(replay == expected)
        #expect(offline.cache.statistics.originBytes == 0)
        #expect(offline.statistics.bytesFromOrigin == 0)
    }
}
