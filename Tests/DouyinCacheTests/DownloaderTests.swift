import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// What the downloader accepts as a whole resource, against real servers that answer what a
/// lying or misbehaving origin answers: nginx for statuses, a Python server for bodies.
@Suite("Downloader against misbehaving origins", .serialized)
struct DownloaderTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func download(_ url: URL, with downloader: Downloader) async -> Result<DownloadedData, CacheError> {
        await withCheckedContinuation { done in
            downloader.download(url) { done.resume(returning: $0) }
        }
    }

    // MARK: - Statuses

    @Test func partialContent206IsRefusedNotCachedAsTheWholeResource() async throws {
        defer { folder.remove() }
        // Given an origin (or CDN) that answers a plain GET with 206 and a matching length
        let origin = try await NginxOrigin.start(extraLocations: #"location /partial/ { return 206 "the first half"; }"#)
        let url = origin.url("/partial/cover.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        // Then it is an HTTP error, and neither tier keeps the part
        await #expect(throws: CacheError.httpStatus(206, url: url.absoluteString)) { try await cache.data(for: url) }
        #expect(cache.cachedData(for: url) == nil)
        #expect(cache.disk?.count == 0)
    }

    @Test(arguments: [204, 202, 205])
    func otherSuccessStatusesAreRefusedNotCachedAsEmpty(status: Int) async throws {
        defer { folder.remove() }
        let origin = try await NginxOrigin.start(extraLocations: "location /odd/ { return \(status); }")
        let url = origin.url("/odd/avatar.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        await #expect(throws: CacheError.httpStatus(status, url: url.absoluteString)) { try await cache.data(for: url) }
        #expect(cache.cachedData(for: url) == nil)
        #expect(cache.disk?.count == 0)
    }

    @Test func nonAuthoritative203IsAWholeResource() async throws {
        defer { folder.remove() }
        let origin = try await NginxOrigin.start(extraLocations: #"location /proxy/ { return 203 "transformed by a proxy"; }"#)
        let url = origin.url("/proxy/a.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        #expect(try await cache.fetch(url) == (Data("transformed by a proxy".utf8), .network))
        #expect(cache.disk?.count == 1)
    }

    // MARK: - Body size

    @Test func contentLengthOverTheLimitIsRefusedFromTheHead() async throws {
        defer { folder.remove() }
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(count: 2_000_000), at: "/big.mp4")
        try origin.serve(Data(count: 1_000_000), at: "/exact.mp4")
        let downloader = try Downloader(configuration: .init(maximumBodySize: 1_000_000))
        let url = origin.url("/big.mp4")
        #expect(await download(url, with: downloader) == .failure(.bodyTooLarge(url: url.absoluteString, limit: 1_000_000)))
        // Exactly the limit is allowed.
        let exact = try await download(origin.url("/exact.mp4"), with: downloader).get()
        #expect(exact.data.count == 1_000_000 && exact.isLengthChecked)
    }

    @Test func lyingContentLengthIsRefusedWithoutWaitingForTheBody() async throws {
        // The server announces 10 GB, sends 1000 bytes and then stalls for a minute: a client
        // that read on before deciding would wait that minute.
        let origin = try await HostileOrigin.start()
        let url = origin.url("/announce/10000000000")
        let downloader = try Downloader(configuration: .init(maximumBodySize: 64 << 20))
        #expect(await download(url, with: downloader) == .failure(.bodyTooLarge(url: url.absoluteString, limit: 64 << 20)))
    }

    @Test(arguments: ["/endless", "/chunked-endless"])
    func endlessBodyIsStoppedAtTheLimit(path: String) async throws {
        defer { folder.remove() }
        let origin = try await HostileOrigin.start()
        let url = origin.url(path)
        // Small, so the bytes a loopback server sends before the stop takes effect stay cheap
        // under Thread Sanitizer (each byte held costs several there).
        let limit = 256 << 10
        let cache = TwoTierCache(
            disk: try DiskCache(directory: folder.url),
            downloader: try Downloader(configuration: .init(maximumBodySize: limit))
        )
        await #expect(throws: CacheError.bodyTooLarge(url: url.absoluteString, limit: limit)) { try await cache.data(for: url) }
        #expect(cache.disk?.count == 0)
    }

    @Test func fileOverTheLimitIsRefused() async throws {
        defer { folder.remove() }
        let file = folder.appending("large.bin")
        try Data(count: 10_001).write(to: file)
        let downloader = try Downloader(configuration: .init(maximumBodySize: 10_000, allowsFileURLs: true))
        #expect(await download(file, with: downloader) == .failure(.bodyTooLarge(url: file.absoluteString, limit: 10_000)))
        try Data(count: 10_000).write(to: file)
        #expect(try await download(file, with: downloader).get() == DownloadedData(data: Data(count: 10_000), isLengthChecked: true))
    }

    // MARK: - Framing

    @Test func closeDelimitedBodyIsAnsweredButNeverStored() async throws {
        defer { folder.remove() }
        // Given a body framed only by the server closing the connection
        let origin = try await HostileOrigin.start()
        let url = origin.url("/close/50000")
        let cache = try TwoTierCache(directory: folder.url)
        // When it is fetched twice
        let first = try await cache.fetch(url)
        let second = try await cache.fetch(url)
        // Then both callers get the bytes, from the network each time: a cut-short body would
        // have looked the same, so it is kept in neither tier.
        #expect(first == (HostileOrigin.body(50000), .network))
        #expect(second.source == .network)
        #expect(cache.disk?.count == 0)
        #expect(cache.statistics.uncheckedDownloads == 2)
    }

    @Test func truncatedCloseDelimitedBodyIsNeverPersisted() async throws {
        defer { folder.remove() }
        // The server stops halfway; nothing on the wire tells the client.
        let origin = try await HostileOrigin.start()
        let url = origin.url("/close-cut/100000")
        let cache = try TwoTierCache(directory: folder.url)
        let answer = try await cache.fetch(url)
        #expect(answer.data.count == 50000)
        #expect(cache.cachedData(for: url) == nil)
        let restarted = try TwoTierCache(directory: folder.url)
        #expect(restarted.cachedData(for: url) == nil)
    }

    @Test func encodedCloseDelimitedBodyIsNeverPersisted() async throws {
        defer { folder.remove() }
        let origin = try await HostileOrigin.start()
        let url = origin.url("/gzip-close/30000")
        let cache = try TwoTierCache(directory: folder.url)
        #expect(try await cache.fetch(url) == (Data(count: 30000), .network))
        #expect(cache.cachedData(for: url) == nil)
    }

    @Test func chunkedBodyIsFramedAndStored() async throws {
        defer { folder.remove() }
        let origin = try await HostileOrigin.start()
        let url = origin.url("/chunked/100000")
        let body = try await download(url, with: Downloader()).get()
        #expect(body == DownloadedData(data: HostileOrigin.body(100000), isLengthChecked: true))
        let cache = try TwoTierCache(directory: folder.url)
        #expect(try await cache.fetch(url).source == .network)
        #expect(try await cache.fetch(url).source == .memory)
        #expect(cache.disk?.count == 1)
    }
}
