import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
import Testing

/// Counts calls from any thread.
private final class Counter: Sendable {
    private let count = LockedBox(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite("URLSessionOrigin bounds the bytes buffered for a slow consumer")
struct BoundedBufferTests {
    static let oneByteBuffer: URLSessionOrigin.Configuration = {
        var configuration = URLSessionOrigin.Configuration()
        configuration.maxBufferedBytes = 1
        return configuration
    }()

    @Test func aConsumerFallingBehindStopsTheTransferOnceAfterTheLimit() async throws {
        let stops = Counter()
        let channel = ChunkChannel(limit: 4_000_000) { stops.increment() }
        let megabyte = Data(repeating: 1, count: 1_000_000)
        for _ in 0..<10 { channel.append(megabyte) }
        #expect(stops.value == 1)
        #expect(channel.isFinished)
        // The chunk that crossed the limit is kept, nothing after it.
        #expect(try await channel.next()?.count == 5_000_000)
        await #expect(throws: URLSessionOrigin.ConsumerFellBehind.self) { try await channel.next() }
    }

    @Test func aReadThroughATinyBufferStillGetsEveryByteInOrder() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/v/tiny.mp4")
        // One byte of buffer: any chunk arriving while the cache is writing stops the transfer,
        // and the read goes on with a new Range request from where the bytes end.
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 30, origin: URLSessionOrigin(configuration: Self.oneByteBuffer))
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

    @Test func anUncachedReadThroughATinyBufferStillGetsEveryByte() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/v/uncached.mp4")
        // A 100 KB budget: the read soon streams from the origin without storing.
        let cache = try VideoCache(directory: folder.url, sizeLimit: 100_000, origin: URLSessionOrigin(configuration: Self.oneByteBuffer))
        let reader = cache.reader(for: nginx.url("/v/uncached.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(0..<3_000_000) == file)
        #expect(cache.statistics.storedBytes <= 100_000)
    }
}
