import DouyinCache
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// The prefetcher against a real nginx, counting the origin's requests.
@Suite("ImagePrefetcher against a real nginx", .serialized)
struct ImagePrefetcherTests {
    static func requests(_ origin: NginxOrigin, _ path: String) -> Int {
        origin.requests().filter { $0.uri == path }.count
    }

    @Test func aVisibleFetchJoinsTheRunningPrefetchInsteadOfDownloadingAgain() async throws {
        try await withTemporaryDirectory { folder in
            // Given: five covers being prefetched slowly (200 kB/s), two at a time.
            let origin = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 200k; }")
            let urls = try (0..<5).map { index in
                try origin.serve(Data(repeating: UInt8(index), count: 600_000), at: "/slow/\(index).webp")
                return origin.url("/slow/\(index).webp")
            }
            let cache = try TwoTierCache(directory: folder.url)
            let prefetcher = ImagePrefetcher(cache: cache)
            prefetcher.startPrefetching(with: urls)
            #expect(prefetcher.pendingCount == 5)
            // Until the prefetch of the first waits on its download (bounded: a prefetch that
            // already ended leaves the visible fetch a memory hit, still one request).
            while cache.waiterCount(for: urls[0]) < 1, cache.cachedData(for: urls[0]) == nil, prefetcher.statistics.completed + prefetcher.statistics.failed == 0 {
                await Task.yield()
            }

            // When: the first cover scrolls into view while its prefetch downloads, and the
            // last one (still waiting in the prefetcher) too.
            async let first = cache.fetch(urls[0])
            async let last = cache.fetch(urls[4])
            let (visibleFirst, visibleLast) = try await (first, last)
            await prefetcher.idle()

            // Then: each URL was requested from the origin exactly once: the visible fetch
            // shared the prefetch's download, and the later prefetch found the bytes held.
            // (`.network` when it joined the running prefetch, `.memory` when a loaded machine let
            // the prefetch end first: either way no second request, which is what is checked.)
            #expect(visibleFirst.data.count == 600_000)
            #expect(visibleLast.data.count == 600_000)
            for index in 0..<5 { #expect(Self.requests(origin, "/slow/\(index).webp") == 1, "cover \(index)") }
            #expect(cache.statistics.downloads == 5)
            #expect(prefetcher.statistics.completed == 5 && prefetcher.pendingCount == 0)
            for url in urls { #expect(cache.cachedData(for: url)?.count == 600_000) }
        }
    }

    @Test(.hangGuard)
    func stoppingDropsWaitingPrefetchesAndCancelsRunningOnes() async throws {
        try await withTemporaryDirectory { folder in
            // 500 KB at 1 KB/s: the first prefetch cannot end (for 8 minutes) before the stop,
            // however late a loaded machine runs this test (2 MB at 50 kB/s gave it 40 s); one the
            // stop missed still ends, and the checks below then fail.
            let origin = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 1k; }")
            let urls = try (0..<4).map { index in
                try origin.serve(Data(count: 500_000), at: "/slow/\(index).bin")
                return origin.url("/slow/\(index).bin")
            }
            let cache = try TwoTierCache(directory: folder.url)
            let prefetcher = try ImagePrefetcher(cache: cache, configuration: .init(maxConcurrentPrefetches: 1))
            prefetcher.startPrefetching(with: urls)
            #expect(await waitUntil { cache.waiterCount(for: urls[0]) >= 1 }, "the first prefetch waits on its download")

            prefetcher.stopAll()
            await prefetcher.idle()
            // The running download's cancellation drains the downloader's queue.
            await withCheckedContinuation { done in cache.downloader.queue.addBarrierBlock { done.resume() } }

            #expect(prefetcher.statistics.cancelled == 4 && prefetcher.statistics.completed == 0)
            for url in urls { #expect(cache.cachedData(for: url) == nil) }
            // The three that waited never reached the origin.
            for index in 1..<4 { #expect(Self.requests(origin, "/slow/\(index).bin") == 0) }
        }
    }

    @Test(.hangGuard)
    func prefetchesQueueBehindAVisibleFetch() async throws {
        try await withTemporaryDirectory { folder in
            // Given: a downloader with one slot, busy with a download that cannot end during the
            // test (500 KB at 1 KB/s: 8 minutes), and two prefetches queued behind it. The
            // test ends the busy download itself once everything is queued: with a faster origin
            // (400 KB at 10 kB/s), a task pool kept busy by other suites under Thread Sanitizer
            // let it finish before both prefetches were queued (fresh-clone make test), and the
            // waits for the queue could then spin for ever.
            let origin = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 200k; } location /stuck/ { limit_rate 1k; }")
            for name in ["p0", "p1", "visible"] { try origin.serve(Data(count: 400_000), at: "/slow/\(name).bin") }
            try origin.serve(Data(count: 500_000), at: "/stuck/busy.bin")
            let cache = try TwoTierCache(directory: folder.url, configuration: .init(downloader: .init(maxConcurrentDownloads: 1)))
            let queue = cache.downloader.queue
            let busy = Task { try await cache.fetch(origin.url("/stuck/busy.bin")) }
            try #require(await waitUntil { queue.operationCount >= 1 }, "the busy download is queued")
            let prefetcher = ImagePrefetcher(cache: cache)
            prefetcher.startPrefetching(with: [origin.url("/slow/p0.bin"), origin.url("/slow/p1.bin")])
            try #require(await waitUntil { queue.operationCount >= 3 }, "both prefetches are queued")

            // When: a visible fetch is asked after them, and then the slot frees.
            async let visible = cache.fetch(origin.url("/slow/visible.bin"))
            try #require(await waitUntil { queue.operationCount >= 4 }, "the visible fetch is queued")
            busy.cancel()
            _ = try await visible
            await prefetcher.idle()

            // Then: the origin saw the visible request before both prefetches.
            let order = origin.requests().map(\.uri)
            let position = { (name: String) in order.firstIndex(of: "/slow/\(name).bin") ?? .max }
            #expect(position("visible") < position("p0") && position("visible") < position("p1"), "\(order)")
        }
    }

    @Test func progressReportsBytesReceivedUpToTheWholeBody() async throws {
        try await withTemporaryDirectory { folder in
            let origin = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 400k; }")
            try origin.serve(Data(count: 500_000), at: "/slow/p.bin")
            let cache = try TwoTierCache(directory: folder.url)
            let reports = LockedBox([FetchProgress]())
            let answer = try await cache.fetch(origin.url("/slow/p.bin")) { progress in
                reports.withLock { $0.append(progress) }
            }
            let seen = reports.withLock { $0 }
            #expect(answer.data.count == 500_000)
            #expect(seen.count > 1, "a slow body arrives in pieces")
            #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
            #expect(seen.allSatisfy { $0.expectedBytes == 500_000 })
            #expect(seen.last == FetchProgress(receivedBytes: 500_000, expectedBytes: 500_000))
            // A memory hit reports nothing.
            let before = seen.count
            _ = try await cache.fetch(origin.url("/slow/p.bin")) { progress in reports.withLock { $0.append(progress) } }
            #expect(reports.withLock { $0.count } == before)
        }
    }

    @Test func configurationOutOfRangeIsRefusedNamingTheField() throws {
        let cache = TwoTierCache(disk: nil)
        #expect(throws: CacheError.configurationOutOfRange(field: "maxConcurrentPrefetches", value: "0", allowed: "1 or more")) {
            _ = try ImagePrefetcher(cache: cache, configuration: .init(maxConcurrentPrefetches: 0))
        }
        #expect(throws: CacheError.configurationOutOfRange(field: "maxConcurrentDownloads", value: "0", allowed: "1 or more")) {
            _ = try Downloader(configuration: .init(maxConcurrentDownloads: 0))
        }
        #expect(throws: CacheError.configurationOutOfRange(field: "maximumBodySize", value: "-1", allowed: "0 or more bytes, or nil for no limit")) {
            _ = try Downloader(configuration: .init(maximumBodySize: -1))
        }
    }
}
