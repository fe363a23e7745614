import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
import Testing

/// The two HTTP origins: libcurl's transport pauses for a slow consumer, URLSession's stops
/// and the cache asks again.
enum TinyBufferOrigin: String, CaseIterable, CustomTestStringConvertible {
    case curl, urlSession

    var testDescription: String { rawValue }

    func make() -> any VideoOrigin {
        var configuration = HTTPOrigin.Configuration()
        configuration.maxBufferedBytes = 1
        switch self {
        case .curl: return HTTPOrigin(configuration: configuration)
        case .urlSession: return URLSessionOrigin(configuration: configuration)
        }
    }
}

@Suite("HTTP origins bound the bytes buffered for a slow consumer")
struct BoundedBufferTests {
    @Test func aBufferThatCannotPauseSaysOnceItIsOverItsLimit() async throws {
        let buffer = HTTPBodyBuffer(limit: 4_000_000, resume: {}, cancelTransfer: {})
        let megabyte = Data(repeating: 1, count: 1_000_000)
        let overs = (0..<5).map { _ in buffer.append(megabyte).overLimit }
        // The chunk that crossed the limit is kept and said to be over it.
        #expect(overs == [false, false, false, false, true])
        #expect(try await buffer.next()?.data.count == 5_000_000)
    }

    @Test(arguments: TinyBufferOrigin.allCases)
    func aReadThroughATinyBufferStillGetsEveryByteInOrder(origin: TinyBufferOrigin) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/v/tiny.mp4")
        // One byte of buffer: any chunk arriving while the cache is writing pauses the transfer
        // (libcurl) or stops it, and the read goes on with a new Range request from where the
        // bytes end (URLSession).
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 30, origin: origin.make())
        let reader = cache.reader(for: nginx.url("/v/tiny.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(0..<3_000_000) == file)
        let requests = nginx.requests().filter { $0.uri == "/v/tiny.mp4" }
        #expect(requests.allSatisfy { $0.status == 206 })
        // Each request after the first starts where the bytes held before it ended.
        let starts = requests.compactMap { Int64($0.range.dropFirst("bytes=".count).split(separator: "-").first ?? "") }
        #expect(starts.first == 0 && starts == starts.sorted())
        #expect(reader.cachedRanges.ranges == [0..<3_000_000])
        // How many restarts happen depends on timing (from 1 to a handful here); the bytes may not.
    }

    @Test(arguments: TinyBufferOrigin.allCases)
    func anUncachedReadThroughATinyBufferStillGetsEveryByte(origin: TinyBufferOrigin) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/v/uncached.mp4")
        // A 100 KB budget: the read soon streams from the origin without storing.
        let cache = try VideoCache(directory: folder.url, sizeLimit: 100_000, origin: origin.make())
        let reader = cache.reader(for: nginx.url("/v/uncached.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(0..<3_000_000) == file)
        #expect(cache.statistics.storedBytes <= 100_000)
    }
}
