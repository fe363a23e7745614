import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// Issue 22 §2: the cache answers a watcher's questions (what is known, what changed) without a
/// request, a reader or a timer; and §5: a first read after a restart reads each byte once.
@Suite("VideoCache content info and change stream", .hangGuard)
struct VideoCacheChangesTests {
    @Test func contentInfoComesFromTheIndexWithoutARequest() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try nginx.serve(videoBytes(400_000, seed: 223), at: "/v/info.mp4")
        let url = nginx.url("/v/info.mp4")
        try await VideoCache(directory: folder.url, sizeLimit: 1 << 30).prefetch(url, bytes: 100_000)
        let before = nginx.requests().count
        // When a cache restarted over the directory is asked, with no reader open
        let restarted = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        #expect(restarted.contentInfo(for: url)?.length == 400_000)
        // Then it answers from the index: no request
        #expect(nginx.requests().count == before)
        // And a URL never fetched is unknown, still without a request
        #expect(restarted.contentInfo(for: nginx.url("/v/other.mp4")) == nil)
        #expect(nginx.requests().count == before)
    }

    @Test func eachSubscriberIsToldEveryStoreAndDrop() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = folder.appending("source.mp4")
        try videoBytes(300_000, seed: 224).write(to: source)
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin(chunkSize: 50_000))
        // Two subscribers before anything is held: each first hears "nothing"
        var first = cache.changes(for: source).makeAsyncIterator()
        var second = cache.changes(for: source).makeAsyncIterator()
        #expect(await first.next() == VideoCache.Content(ranges: ByteRangeSet(), length: nil))
        #expect(await second.next()?.ranges.isEmpty == true)
        // When bytes are stored, each subscriber hears, on its own copy, until all are held
        try await cache.prefetch(source, bytes: 300_000)
        for var iterator in [first, second] {
            var last: VideoCache.Content?
            while let content = await iterator.next() {
                last = content
                if content.isComplete { break }
            }
            #expect(last?.length == 300_000 && last?.ranges.contains(0..<300_000) == true)
        }
        // And a drop (remove while a reader keeps the entry) is told too
        let reader = cache.reader(for: source)
        defer { reader.close() }
        cache.remove(for: source)
        while let content = await first.next() {
            if content.ranges.isEmpty { break }
        }
    }

    @Test func aFirstReadAfterARestartReadsEachByteOnce() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = folder.appending("source.mp4")
        let bytes = videoBytes(2_000_000, seed: 225)
        try bytes.write(to: source)
        try await VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin()).prefetch(source, bytes: 2_000_000)
        // The real calls, wrapped to count the bytes pread (no fault is injected)
        let readBytes = LockedBox(0)
        var calls = Syscalls.system
        let pread = calls.pread
        calls.pread = { descriptor, buffer, count, offset in
            let got = pread(descriptor, buffer, count, offset)
            if got > 0 { readBytes.withLock { $0 += got } }
            return got
        }
        let restarted = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin(),
                                       configuration: VideoCache.Configuration(), files: FileIO(syscalls: calls))
        let reader = restarted.reader(for: source)
        defer { reader.close() }
        let start = readBytes.withLock { $0 }
        // When every block is checked at its first read
        #expect(try await reader.read(0..<2_000_000) == bytes)
        // Then the check used the bytes read for the answer: 2 MB read, not 4
        #expect(readBytes.withLock { $0 } - start == 2_000_000)
    }
}
