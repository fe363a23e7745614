import DouyinSupport
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Issue 22: `persist()` writes only when something changed. Every index write ends in one
/// `rename` (temp file over the index), counted here through the file layer's syscall seam
/// (the real calls, wrapped to count; no fault is injected).
@Suite("VideoCache writes its index only when it changed")
struct IndexWriteTests {
    /// A 300,000-byte source file in `folder`, and the real syscalls with `rename` counted:
    /// each index write ends in one.
    static func renameCountingSetup(in folder: TemporaryDirectory) throws -> (source: URL, renames: LockedBox<Int>, calls: Syscalls) {
        let source = folder.appending("source.mp4")
        try videoBytes(300_000, seed: 22).write(to: source)
        let renames = LockedBox(0)
        var calls = Syscalls.system
        let rename = calls.rename
        calls.rename = { from, to in
            renames.withLock { $0 += 1 }
            return rename(from, to)
        }
        return (source, renames, calls)
    }

    #if os(Linux)
    /// An index write a download schedules while it goes on blocks in `fsync`s: it runs on
    /// the index writers' own queue, never on a thread of the async tasks' pool (on Linux one a
    /// core, which the download and its readers need). The origin (a real loopback server)
    /// holds the rest of the body until an `fsync` is seen, so the first one can only be the
    /// scheduled write's; a wrapper of the real call records where it ran.
    @Test func aDownloadsScheduledIndexWriteRunsOnItsOwnQueue() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let body = videoBytes(400_000, seed: 19)
        let gate = ServerGate()
        let server = try HTTPTestServer { exchange in
            exchange.sendHead(200, headers: [("Content-Length", String(body.count))])
            _ = exchange.sendBody(body.prefix(128 << 10))
            guard exchange.hold(until: gate) else { return }
            _ = exchange.sendBody(body.dropFirst(128 << 10))
        }
        defer { server.stop() }
        let onQueue = LockedBox<[Bool]>([])
        var calls = Syscalls.system
        let fsync = calls.fsync
        calls.fsync = { fd in
            onQueue.withLock { $0.append(IndexWriteQueue.isCurrent) }
            gate.open()
            return fsync(fd)
        }
        var configuration = VideoCache.Configuration()
        configuration.persistInterval = 64 << 10
        configuration.persistSpacing = .zero
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: HTTPOrigin(),
                                   configuration: configuration, files: FileIO(syscalls: calls))
        let reader = cache.reader(for: server.url("/a.mp4"))
        let read = try await reader.read(0..<Int64(body.count))
        reader.close()
        #expect(read == body)
        let seen = onQueue.withLock { $0 }
        #expect(seen.first == true, "where each fsync ran, on the index queue or not: \(seen)")
    }
    #endif

    @Test func aReaderOpenedAndClosedWithNothingNewWritesNoIndex() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (source, renames, calls) = try Self.renameCountingSetup(in: folder)
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin(),
                                   configuration: VideoCache.Configuration(), files: FileIO(syscalls: calls))
        // Given a resource with bytes held and indexed
        try await cache.prefetch(source, bytes: 200_000)
        let afterFetch = renames.withLock { $0 }
        #expect(afterFetch >= 1)
        // When readers are opened and closed (and persisted) with nothing new, as a poll does
        for _ in 0..<10 {
            let reader = cache.reader(for: source)
            _ = try await reader.contentInfo()
            try reader.persist()
            reader.close()
        }
        // Then no index is written
        #expect(renames.withLock { $0 } == afterFetch)
        // And one new byte is one write again
        try await cache.prefetch(source, bytes: 200_001)
        #expect(renames.withLock { $0 } == afterFetch + 1)
    }

    /// Once a close found the index unchanged, later closes skip the comparison while nothing
    /// it says has changed: the access time still counts, in and past its 60 s of slack, and
    /// so does a changed byte range after such a close.
    @Test func closesAfterAnUnchangedOneStillWriteWhatChanged() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (source, renames, calls) = try Self.renameCountingSetup(in: folder)
        let clock = LockedBox(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = VideoCache.Configuration()
        configuration.now = { clock.withLock { $0 } }
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: FileOrigin(),
                                   configuration: configuration, files: FileIO(syscalls: calls))
        try await cache.prefetch(source, bytes: 100_000)
        let writes = { renames.withLock { $0 } }
        let base = writes()
        func readAndClose(after seconds: Double) async throws {
            clock.withLock { $0 += seconds }
            let reader = cache.reader(for: source)
            #expect(try await reader.read(0..<1_000).count == 1_000)
            reader.close()
        }
        try await readAndClose(after: 1)
        try await readAndClose(after: 1)
        #expect(writes() == base, "reads within the slack write nothing")
        try await readAndClose(after: 61)
        #expect(writes() == base + 1, "an access time 61 s on is written")
        try await readAndClose(after: 30)
        #expect(writes() == base + 1)
        try await readAndClose(after: 31)
        #expect(writes() == base + 2, "61 s after the last write")
        try await cache.prefetch(source, bytes: 150_000)
        #expect(writes() == base + 3, "new bytes are written")
        try await readAndClose(after: 1)
        #expect(writes() == base + 3)
    }
}
