import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 21 items 7 and 8, the image side: a URL from a feed is data. Only http(s) is fetched;
/// `file://` only behind `Downloader.Configuration.allowsFileURLs`, and then only a regular
/// file, found without blocking; every other scheme refused before any connection.
@Suite("Downloader schemes")
struct SchemeTests {
    /// Item 8: a feed's `file:///…` cover copied a local file into the image cache.
    @Test func aFileURLIsRefusedUnlessTheSwitchIsOn() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let secret = folder.appending("secret.txt")
        try Data("a local file".utf8).write(to: secret)
        let cache = try TwoTierCache(directory: folder.appending("cache"))
        await #expect(throws: CacheError.unsupportedScheme(url: secret.absoluteString, scheme: "file")) {
            try await cache.fetch(secret)
        }
        await #expect(throws: CacheError.unsupportedScheme(url: secret.absoluteString, scheme: "file")) {
            try await cache.prefetch(secret)
        }
        #expect(cache.cachedData(for: secret) == nil)
        #expect(cache.disk?.count == 0)
        // The scheme is matched without regard to case, and the error names it as written.
        let upper = URL(string: "FILE://" + secret.path)!
        await #expect(throws: CacheError.unsupportedScheme(url: upper.absoluteString, scheme: "FILE")) { try await cache.fetch(upper) }
        // Switched on, for explicit local use, the same file is read.
        let local = try TwoTierCache(directory: folder.appending("local"), configuration: .init(downloader: .init(allowsFileURLs: true)))
        #expect(try await local.fetch(secret) == (Data("a local file".utf8), .network))
    }

    /// Item 7: `file:///path/to/fifo` hung the tool (the read blocked for a writer that never
    /// came). With the switch on, a FIFO, a directory and a device are refused from `fstat`.
    @Test func aFIFOADirectoryOrADeviceIsRefusedWithoutBlocking() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let fifo = folder.appending("cover.webp")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let downloader = try Downloader(configuration: .init(allowsFileURLs: true))
        let cache = TwoTierCache(memory: MemoryCache(), disk: try DiskCache(directory: folder.appending("cache")), downloader: downloader)
        await #expect(throws: CacheError.notARegularFile(url: fifo.absoluteString)) { try await cache.fetch(fifo) }
        let directory = folder.appending("cache")
        await #expect(throws: CacheError.notARegularFile(url: directory.absoluteString)) { try await cache.fetch(directory) }
        let device = URL(fileURLWithPath: "/dev/zero")
        await #expect(throws: CacheError.notARegularFile(url: device.absoluteString)) { try await cache.fetch(device) }
        let missing = folder.appending("missing.webp")
        await #expect(throws: CacheError.transport(url: missing.absoluteString, URLError(.fileDoesNotExist))) { try await cache.fetch(missing) }
        #expect(cache.disk?.count == 0)
    }

    /// A regular file over the body limit is refused from its size, unread.
    @Test func aLocalFileOverTheBodyLimitIsRefusedFromItsSize() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let big = folder.appending("big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 1 << 40)  // sparse: a terabyte that takes no disk
        try handle.close()
        let downloader = try Downloader(configuration: .init(allowsFileURLs: true))
        let result = await withCheckedContinuation { done in
            downloader.download(big) { done.resume(returning: $0) }
        }
        #expect(throws: CacheError.bodyTooLarge(url: big.absoluteString, limit: 64 << 20)) { try result.get() }
    }

    /// Item 8: `ftp://` (FoundationNetworking speaks FTP through libcurl) and other schemes are
    /// refused before any connection: a listening socket on the URL's port is never reached.
    @Test func otherSchemesAreRefusedBeforeAnyConnection() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let listener = try ListeningSocket()
        let cache = try TwoTierCache(directory: folder.url, configuration: .init(downloader: .init(allowsFileURLs: true)))
        for text in ["ftp://127.0.0.1:\(listener.port)/cover.webp", "gopher://127.0.0.1:\(listener.port)/", "data:text/plain,hi", "cover.webp"] {
            let url = try #require(URL(string: text))
            await #expect(throws: CacheError.unsupportedScheme(url: url.absoluteString, scheme: url.scheme ?? "")) {
                try await cache.prefetch(url)
            }
        }
        #expect(!listener.hasPendingConnection)
        #expect(cache.statistics.downloadFailures == 4)
    }
}

/// A loopback TCP socket that listens and never accepts: a connection to it would wait in its
/// backlog, where `hasPendingConnection` sees it.
final class ListeningSocket: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try bindLoopback(listenBacklog: 8)
    }

    deinit {
        close(descriptor)
    }

    /// Whether a connection waits to be accepted (poll, no waiting).
    var hasPendingConnection: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }
}
