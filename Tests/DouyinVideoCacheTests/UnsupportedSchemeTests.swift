import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
import Testing

/// Issue 21 item 8, video side: URLs come from data (feeds, API answers), and
/// FoundationNetworking speaks FTP and reads files; `URLSessionOrigin` fetches http(s) only and
/// refuses everything else before any connection. Each test points the URL at a listening
/// socket that must see no connection.
@Suite("URLSessionOrigin refuses other schemes before connecting")
struct UnsupportedSchemeTests {
    @Test(arguments: ["ftp", "gopher", "file", "FTP"])
    func anotherSchemeIsRefusedWithoutAConnection(scheme: String) async throws {
        let listener = try SilentListener()
        let url = try #require(URL(string: "\(scheme)://127.0.0.1:\(listener.port)/v.mp4"))
        await #expect(throws: VideoCacheError.unsupportedScheme(url: url.absoluteString)) {
            _ = try await URLSessionOrigin().fetch(OriginRequest(url: url, range: 0..<100))
        }
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func aVideoCacheReadOfAnFTPURLFailsTypedWithoutAConnection() async throws {
        let listener = try SilentListener()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = try #require(URL(string: "ftp://127.0.0.1:\(listener.port)/v.mp4"))
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 20)
        await #expect(throws: VideoCacheError.unsupportedScheme(url: url.absoluteString)) {
            try await cache.prefetch(url, bytes: 100)
        }
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func aRedirectToAnotherSchemeIsNotFollowed() async throws {
        let listener = try SilentListener()
        let server = try ScriptedHTTPServer { _, _ in
            .init(status: 302, headers: [("Location", "ftp://127.0.0.1:\(listener.port)/v.mp4"), ("Content-Length", "0")])
        }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = server.url("/moved.mp4")
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 20)
        await #expect(throws: VideoCacheError.originStatus(302, url: url.absoluteString)) {
            try await cache.prefetch(url, bytes: 100)
        }
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func httpAndHTTPSAreFetchable() {
        #expect(URLSessionOrigin.isFetchable(URL(string: "http://a/v")!))
        #expect(URLSessionOrigin.isFetchable(URL(string: "HTTPS://a/v")!))
        #expect(!URLSessionOrigin.isFetchable(URL(string: "data:video/mp4,xyz")!))
    }
}

/// Found beside issue 36: `video get file:///<fifo>` hung, as `FileOrigin` opened the path with
/// `FileHandle(forReadingAtPath:)`, which blocks on a FIFO with no writer.
@Suite("FileOrigin refuses what is not a regular file without blocking")
struct FileOriginSpecialFileTests {
    @Test func aFIFOWithNoWriterIsRefusedAtOnce() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let fifo = folder.appending("v.mp4")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        await #expect(throws: VideoCacheError.invalidResponse("\(fifo.path) is not a regular file")) {
            _ = try await FileOrigin().fetch(OriginRequest(url: fifo, range: 0..<100))
        }
    }

    @Test func aDirectoryIsRefused() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        await #expect(throws: VideoCacheError.invalidResponse("\(folder.url.path) is not a regular file")) {
            _ = try await FileOrigin().fetch(OriginRequest(url: folder.url, range: 0..<100))
        }
    }
}
