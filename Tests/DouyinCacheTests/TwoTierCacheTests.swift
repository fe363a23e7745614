import DouyinCache
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("TwoTierCache against a real nginx", .serialized)
struct TwoTierCacheTests {
    let origin: NginxOrigin
    let folder: TemporaryDirectory

    init() async throws {
        // `/stall/`: the first 300 KB at once, then 1 KB/s, so a transfer the test cuts cannot
        // end before the cut, however late a loaded machine runs the test.
        origin = try await NginxOrigin.start(extraLocations: """
            location /slow/ { limit_rate 200k; }
            location /stall/ { limit_rate_after 300k; limit_rate 1k; }
            """)
        folder = try TemporaryDirectory()
    }

    func requests(to path: String) -> Int {
        origin.requests().filter { $0.uri == path }.count
    }

    @Test func networkThenMemoryThenDiskAfterRestart() async throws {
        defer { folder.remove() }
        let cover = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try origin.serve(cover, at: "/covers/a.webp")
        let url = origin.url("/covers/a.webp")
        let cache = try TwoTierCache(directory: folder.url)
        let first = try await cache.fetch(url)
        #expect(first.source == .network && first.data == cover)
        let second = try await cache.fetch(url)
        #expect(second.source == .memory && second.data == cover)
        let restarted = try TwoTierCache(directory: folder.url)
        let third = try await restarted.fetch(url)
        #expect(third.source == .disk && third.data == cover)
        #expect(try await restarted.fetch(url).source == .memory)  // promoted
        #expect(requests(to: "/covers/a.webp") == 1)
        #expect(restarted.statistics.memoryHits == 1 && restarted.statistics.diskHits == 1 && restarted.statistics.downloads == 0)
    }

    @Test func hundredConcurrentCallersCauseOneOriginRequest() async throws {
        defer { folder.remove() }
        let body = Data(count: 400_000)
        try origin.serve(body, at: "/slow/video.mp4")
        let url = origin.url("/slow/video.mp4")
        let cache = try TwoTierCache(directory: folder.url)
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.data(for: url).count } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: body.count, count: 100))
        #expect(requests(to: "/slow/video.mp4") == 1)
        #expect(cache.statistics.downloads == 1)
    }

    @Test(arguments: [404, 500])
    func errorStatusesAreErrorsAndCacheNothing(status: Int) async throws {
        defer { folder.remove() }
        let errorOrigin = try await NginxOrigin.start(extraLocations: "location /fail/ { return \(status); }")
        let url = errorOrigin.url("/fail/a.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        await #expect(throws: CacheError.httpStatus(status, url: url.absoluteString)) { try await cache.data(for: url) }
        #expect(cache.cachedData(for: url) == nil)
        #expect(cache.disk?.count == 0)
        #expect(cache.statistics.downloadFailures == 1)
    }

    @Test func missingFileIs404() async throws {
        defer { folder.remove() }
        let url = origin.url("/nothing-here.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        await #expect(throws: CacheError.httpStatus(404, url: url.absoluteString)) { try await cache.data(for: url) }
    }

    @Test(.hangGuard)
    func serverStoppedMidwayIsAnErrorWithNothingHalfStored() async throws {
        defer { folder.remove() }
        // Stalled after 300 KB: the 1.7 MB left take half an hour, so the stop always comes
        // mid-body (at 200 kB/s it had to come within 10 s).
        try origin.serve(Data(count: 2_000_000), at: "/stall/big.mp4")
        let url = origin.url("/stall/big.mp4")
        let cache = try TwoTierCache(directory: folder.url)
        let started = AsyncStream<Void>.makeStream()
        let downloader = cache.downloader
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<DownloadedData, CacheError>, Never>) in
            downloader.download(url, progress: { received, _ in
                if received > 100_000 { started.continuation.yield() }
            }) { done.resume(returning: $0) }
            Task {
                for await _ in started.stream { break }
                origin.stop()
            }
        }
        // libcurl reports the cut as a transfer error; a body that merely ends short of its
        // Content-Length is `.truncated`. Either way it is an error, never a body.
        switch result {
        case .failure(.transport), .failure(.truncated): break
        default:
            Issue.record("expected a transport or truncation error, got \(result)")
            return
        }
        // Through the cache too: the error surfaces and neither tier holds a partial body.
        await #expect(throws: CacheError.self) { try await cache.data(for: url) }
        #expect(cache.cachedData(for: url) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test(.hangGuard)
    func aCancelledWaiterLeavesTheOthersWaiting() async throws {
        defer { folder.remove() }
        // An origin that holds its answer until the quitter's wait has ended: nginx can only
        // slow a transfer down, and at any rate a loaded machine has let the download end before
        // the second waiter joined or before the cancel (2.4 MB at 200 kB/s gave them 12 s; a
        // whole-suite run has stood still for 80). The downloader waits for that held answer as
        // long as the test does (600 s, not the session's default 60 s without a byte). Were the
        // quitter's wait never to end, the answer is sent after the bound and reaching the
        // quitter fails the test (rather than hanging it).
        let body = Data(count: 300_000)
        let held = DispatchSemaphore(value: 0)
        let server = try ScriptedHTTPServer { _, _ in
            held.wait()
            held.signal()  // once open, every later answer passes too
            return .whole(body)
        }
        defer {
            held.signal()
            server.stop()
        }
        let session = URLSessionConfiguration.ephemeral
        session.timeoutIntervalForRequest = 600
        let cache = TwoTierCache(disk: nil, downloader: Downloader(sessionConfiguration: session))
        let url = server.url("/shared.mp4")
        let quitter = Task { try await cache.data(for: url) }
        let stayer = Task { try await cache.data(for: url) }
        // Both must have joined first: a quitter that cancelled alone stopped the download, and
        // the stayer's later join rightly started a second one (failed once under load in CI).
        guard await waitUntil({ cache.waiterCount(for: url) == 2 }) else {
            Issue.record("the two waiters never both joined (\(cache.waiterCount(for: url)) waiting)")
            return
        }
        quitter.cancel()
        _ = await waitUntil { cache.waiterCount(for: url) == 1 }
        held.signal()
        await #expect(throws: CancellationError.self) { try await quitter.value }
        #expect(try await stayer.value == body)
        #expect(server.requests().count == 1)
    }

    @Test func whenEveryWaiterCancelsTheDownloadStops() async throws {
        defer { folder.remove() }
        try origin.serve(Data(count: 3_000_000), at: "/slow/abandoned.mp4")
        let url = origin.url("/slow/abandoned.mp4")
        let cache = try TwoTierCache(directory: folder.url)
        let waiter = Task { try await cache.data(for: url) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // The queue drains once the abandoned download has been cancelled.
        await withCheckedContinuation { done in
            cache.downloader.queue.addBarrierBlock { done.resume() }
        }
        #expect(cache.cachedData(for: url) == nil)
    }

    @Test func memoryTierKeepsWorkingWhenTheDiskCannotWrite() async throws {
        defer { folder.remove() }
        try origin.serve(Data("avatar".utf8), at: "/avatar.jpeg")
        let url = origin.url("/avatar.jpeg")
        let cache = try TwoTierCache(directory: folder.appending("cache"))
        try FileManager.default.removeItem(at: folder.appending("cache"))
        try Data().write(to: folder.appending("cache"))  // a file where the directory was
        #expect(try await cache.fetch(url).data == Data("avatar".utf8))
        #expect(try await cache.fetch(url).source == .memory)
        #expect(cache.statistics.diskWriteFailures == 1)
    }

    @Test func completionHandlerTwin() async throws {
        defer { folder.remove() }
        try origin.serve(Data("x".utf8), at: "/x.jpeg")
        let cache = try TwoTierCache(directory: folder.url)
        let result = await withCheckedContinuation { done in
            cache.data(for: origin.url("/x.jpeg")) { done.resume(returning: $0) }
        }
        #expect(try result.get() == Data("x".utf8))
    }

    @Test func storeRemoveAndFileURLs() async throws {
        defer { folder.remove() }
        let cache = try TwoTierCache(directory: folder.appending("cache"), configuration: .init(downloader: .init(allowsFileURLs: true)))
        let fileURL = folder.appending("local.bin")
        try Data("local".utf8).write(to: fileURL)
        #expect(try await cache.fetch(fileURL) == (Data("local".utf8), .network))
        let url = URL(string: "https://cdn.example.test/never-fetched")!
        try cache.store(Data("put".utf8), for: url)
        #expect(cache.cachedData(for: url) == Data("put".utf8))
        cache.remove(for: url)
        #expect(cache.cachedData(for: url) == nil)
        cache.removeAll()
        #expect(cache.cachedData(for: fileURL) == nil)
        await #expect(throws: CacheError.unsupportedScheme(url: "ftp://x.test/a", scheme: "ftp")) { try await cache.data(for: URL(string: "ftp://x.test/a")!) }
    }
}

/// The single flight's edges, forced with the cache's package hook between a miss and the join.
@Suite("TwoTierCache single flight edges", .serialized)
struct TwoTierCacheFlightTests {
    @Test func flightFinishingBetweenMissAndJoinIsNotDownloadedTwice() async throws {
        try await withTemporaryDirectory { folder in
            let origin = try await NginxOrigin.start()
            try origin.serve(Data("cover bytes".utf8), at: "/c.jpeg")
            let url = origin.url("/c.jpeg")
            // Given a caller that missed both tiers, and another caller's whole download (start,
            // store, leave) happening right then, before the first joins
            let cacheBox = LockedBox<TwoTierCache?>(nil)
            let firstMiss = LockedBox(true)
            let cache = TwoTierCache(
                memory: MemoryCache(), disk: try DiskCache(directory: folder.url), downloader: Downloader(),
                afterMiss: { url in
                    guard firstMiss.withLock({ first in defer { first = false }; return first }), let cache = cacheBox.withLock({ $0 }) else { return }
                    _ = try? await cache.fetch(url)
                }
            )
            cacheBox.withLock { $0 = cache }
            // When the first caller joins
            let answer = try await cache.fetch(url)
            // Then it finds the bytes in memory instead of starting a second download
            #expect(answer == (Data("cover bytes".utf8), .memory))
            #expect(origin.requests().filter { $0.uri == "/c.jpeg" }.count == 1)
            #expect(cache.statistics.downloads == 1)
            cacheBox.withLock { $0 = nil }
        }
    }

    @Test func cancelledWaitersLeaveNoRecordBehind() async throws {
        try await withTemporaryDirectory { folder in
            let origin = try await NginxOrigin.start()
            try origin.serve(Data(count: 1000), at: "/a.jpeg")
            let url = origin.url("/a.jpeg")
            // A waiter cancelled between its miss and its join: answered CancellationError, no
            // download, nothing kept for it.
            let early = TwoTierCache(
                memory: MemoryCache(), disk: nil, downloader: Downloader(),
                afterMiss: { _ in withUnsafeCurrentTask { $0?.cancel() } }
            )
            let waiter = Task { try await early.fetch(url) }  // its own task: the hook cancels it
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(early.flightCount == 0)
            #expect(early.statistics.downloads == 0)
            // Waiters cancelled at every other point, late ones after their flight resumed them
            // included (the old set of early cancellations kept those ids for ever).
            let cache = TwoTierCache(memory: MemoryCache(configuration: .init(costLimit: 1)), disk: nil)
            for _ in 0..<200 {
                let task = Task { try await cache.data(for: url) }
                await Task.yield()
                task.cancel()
                _ = try? await task.value
            }
            #expect(cache.flightCount == 0)
        }
    }
}
