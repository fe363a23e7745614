import DouyinSupport
import DouyinTestSupport
import DouyinVideoCache
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A mock origin, named as such: a file origin whose first answer stops on purpose after
/// `stopAfter` bytes with ``OriginStoppedEarly`` (what `URLSessionOrigin` does when its
/// consumer falls behind, which no real part does on demand). It counts requests.
private final class StoppingEarlyOrigin: VideoOrigin {
    let file = FileOrigin()
    let stopAfter: Int
    let requests = LockedBox(0)

    init(stopAfter: Int) { self.stopAfter = stopAfter }

    func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        let first = requests.withLock { count -> Bool in
            count += 1
            return count == 1
        }
        let response = try await file.fetch(request)
        guard first else { return response }
        let limit = stopAfter
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                var sent = 0
                do {
                    for try await chunk in response.body {
                        let piece = chunk.prefix(limit - sent)
                        continuation.yield(Data(piece))
                        sent += piece.count
                        if sent >= limit { break }
                    }
                    continuation.finish(throwing: OriginStoppedEarly())
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return OriginResponse(status: response.status, headers: response.headers, body: body)
    }
}

/// Issue 22 §1, §4: the origin contract's "stopped early, ask again", the fault seam reaching
/// every storage call, the typed errors and the injected wall clock.
@Suite("VideoCache engine contracts")
struct EngineContractTests {
    @Test func anyOriginCanStopEarlyAndTheCacheAsksAgainFromWhereItGot() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = folder.appending("source.mp4")
        let bytes = videoBytes(500_000, seed: 221)
        try bytes.write(to: source)
        let origin = StoppingEarlyOrigin(stopAfter: 100_000)
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: origin)
        let reader = cache.reader(for: source)
        defer { reader.close() }
        // When the origin stops its first body early on purpose, the read still gets every byte
        #expect(try await reader.read(0..<500_000) == bytes)
        // By asking again, once, from where the first body stopped
        #expect(origin.requests.withLock { $0 } == 2)
        #expect(cache.cachedRanges(for: source).contains(0..<500_000))
    }

    @Test func startUpCleaningUnlinksThroughTheFileLayer() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.appending("cache")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Given a data file with no index (a kill between the index's and the data's unlink)
        let orphan = directory.appendingPathComponent(String(repeating: "a", count: 32) + ".mp4")
        try Data("stale".utf8).write(to: orphan)
        let faults = FaultInjector()  // a mock of the C calls: here it only counts
        faults.fail(.unlink, with: EROFS)
        // When a cache starts over it, the clean-up's unlink goes through the fault seam
        _ = try VideoCache(directory: directory, sizeLimit: 1 << 20, origin: FileOrigin(), configuration: VideoCache.Configuration(),
                           files: FileIO(syscalls: Syscalls.system.injecting(faults)))
        #expect(faults.injectedCount(.unlink) == 1)
        #expect(FileManager.default.fileExists(atPath: orphan.path), "the injected EROFS was not the call that ran")
    }

    @Test func aRefusedConnectionKeepsItsURLError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let port = try ClosedPort()
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 20)
        let reader = cache.reader(for: port.baseURL.appendingPathComponent("v.mp4"))
        defer { reader.close() }
        do {
            _ = try await reader.read(0..<10)
            Issue.record("a read from a closed port succeeded")
        } catch VideoCacheError.network(let error) {
            #expect(error.code == .cannotConnectToHost)
        }
    }

    @Test func aFullBudgetSaysOverTheSizeLimit() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let source = folder.appending("source.mp4")
        let bytes = videoBytes(300_000, seed: 222)
        try bytes.write(to: source)
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 100_000, origin: FileOrigin())
        let reader = cache.reader(for: source)
        defer { reader.close() }
        #expect(try await reader.read(0..<300_000) == bytes)
        #expect(reader.uncachedError == .overSizeLimit(100_000))
    }

    @Test func aDirectoryThatCannotBeMadeSaysWhyWithItsErrno() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("file")
        try Data("x".utf8).write(to: file)
        let path = file.appendingPathComponent("cache")
        #expect(throws: VideoCacheError.cannotCreateDirectory(path: path.path, errno: ENOTDIR)) {
            try VideoCache(directory: path, sizeLimit: 1 << 20, origin: FileOrigin())
        }
    }

    @Test func evictionOrderFollowsTheInjectedWallClock() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var sources: [URL] = []
        for index in 0..<3 {
            let source = folder.appending("s\(index).mp4")
            try videoBytes(60_000, seed: UInt64(230 + index)).write(to: source)
            sources.append(source)
        }
        // A wall clock that runs backwards: each reading is a day before the last.
        let day = LockedBox(Date(timeIntervalSince1970: 2_000_000_000))
        var configuration = VideoCache.Configuration()
        configuration.now = {
            day.withLock { date in
                date -= 86_400
                return date
            }
        }
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 150_000, origin: FileOrigin(), configuration: configuration)
        // Given s0 read first and s1 second in real time, so by this clock s1 is the older
        try await cache.prefetch(sources[0], bytes: 60_000)
        try await cache.prefetch(sources[1], bytes: 60_000)
        // When s2 needs room for one of them
        try await cache.prefetch(sources[2], bytes: 60_000)
        // Then the least recently used by the injected clock goes: s1, not s0
        #expect(cache.cachedRanges(for: sources[0]).contains(0..<60_000))
        #expect(cache.cachedRanges(for: sources[1]).isEmpty)
    }

    @Test func everySessionGetsASerialDelegateQueueOverItsOwnDispatchQueue() {
        let session = URLSessions.make()
        defer { URLSessions.tearDown(session) }
        #expect(session.delegateQueue.maxConcurrentOperationCount == 1)
        #expect(session.delegateQueue.underlyingQueue != nil)
    }
}
