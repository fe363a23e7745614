import DouyinCache
import DouyinLogging
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// Issue 26 §3: the memory tier, the disk tier and the prefetcher log what they refuse, drop
/// and cancel; one hook on ``TwoTierCache/Configuration`` covers the cache; no hook, no event.
@Suite("Cache parts logging", .serialized)
struct CachePartsLoggingTests {
    static func event(_ recorder: LogRecorder, _ subsystem: String, _ message: String) -> LogEvent? {
        recorder.events.first { $0.subsystem == subsystem && $0.message == message }
    }

    @Test func oneHookOnTheCacheReachesItsMemoryDiskAndDownloader() async throws {
        let origin = try await NginxOrigin.start()
        let urls = try (0..<3).map { index in
            try origin.serve(Data(repeating: UInt8(index), count: 10_000), at: "/\(index).webp")
            return origin.url("/\(index).webp")
        }
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            // Given: room for two of the three 10 kB covers in each tier, one hook for all.
            let configuration = TwoTierCache.Configuration(memory: .init(costLimit: 25_000), disk: .init(sizeLimit: 25_000),
                                                           log: recorder.handler)
            let cache = try TwoTierCache(directory: folder.url, configuration: configuration)
            // When: the three are downloaded, then one larger than both tiers is stored.
            for url in urls { _ = try await cache.data(for: url) }
            #expect(throws: CacheError.self) { try cache.store(Data(count: 30_000), for: origin.url("/big.webp")) }

            // Then: every part told the one hook, under its own subsystem.
            #expect(recorder.events("download ended").count == 3)
            #expect(recorder.events("download ended").allSatisfy { $0.subsystem == "DouyinCache.Downloader" })
            let memory = try #require(Self.event(recorder, "DouyinCache.MemoryCache", "entries evicted"), "\(recorder.events)")
            #expect(memory.metadata["count"] == "1" && memory.metadata["cost"] == "10000")
            let disk = try #require(Self.event(recorder, "DouyinCache.DiskCache", "entries evicted"), "\(recorder.events)")
            #expect(disk.level == .info && disk.metadata == ["count": "1", "bytes": "10000", "reason": "size limit"])
            let notKept = try #require(Self.event(recorder, "DouyinCache.MemoryCache", "value not kept: over the whole cost limit"))
            #expect(notKept.level == .notice && notKept.metadata["cost"] == "30000" && notKept.metadata["limit"] == "25000")
            let refused = try #require(Self.event(recorder, "DouyinCache.DiskCache", "store refused: entry too large"))
            #expect(refused.level == .notice && refused.metadata["error"]?.contains("30000") == true, "\(refused)")
        }
    }

    @Test func withoutAHookNoPartLogsAndAPartsOwnHookWins() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(count: 10_000), at: "/a.webp")
        try origin.serve(Data(count: 10_000), at: "/b.webp")
        let downloads = LogRecorder(), disk = LogRecorder()
        try await withTemporaryDirectory { folder in
            let plain = try TwoTierCache(directory: folder.url.appending(path: "plain"))
            #expect(plain.memory.configuration.log == nil && plain.disk?.configuration.log == nil)
            #expect(plain.downloader.configuration.log == nil)

            // Only the downloader and the disk have hooks, each its own: the memory tier's
            // evictions reach neither, and the disk's events reach only the disk's.
            let configuration = TwoTierCache.Configuration(memory: .init(costLimit: 15_000),
                                                           disk: .init(sizeLimit: 15_000, log: disk.handler),
                                                           downloader: .init(log: downloads.handler))
            let cache = try TwoTierCache(directory: folder.url.appending(path: "hooked"), configuration: configuration)
            _ = try await cache.data(for: origin.url("/a.webp"))
            _ = try await cache.data(for: origin.url("/b.webp"))
            #expect(cache.memory.count == 1, "the memory tier evicted one")
            #expect(downloads.events.map(\.message) == ["download started", "download ended", "download started", "download ended"])
            #expect(disk.events.map(\.message) == ["entries evicted"])
        }
    }

    @Test("A full disk (a FaultInjector mock: no real disk fills on demand) and a damaged file are logged")
    func aFullDiskAndADamagedEntryAreLogged() throws {
        let recorder = LogRecorder()
        try withTemporaryDirectory { folder in
            let faults = FaultInjector()
            let cache = try DiskCache(directory: folder.url, configuration: .init(log: recorder.handler), clock: .system,
                                      files: FileIO(syscalls: Syscalls.system.injecting(faults)))
            let key = MD5.hex("https://cdn.example.test/cover.webp")
            try cache.store(Data(count: 1_000), forKey: key)
            #expect(recorder.events.isEmpty, "a store that fits says nothing")

            faults.fail(.pwrite, with: ENOSPC)
            #expect(throws: CacheError.self) { try cache.store(Data(count: 2_000), forKey: key) }
            faults.heal(.pwrite)
            let full = try #require(recorder.events("store failed: disk full").first)
            #expect(full.level == .error && full.subsystem == "DouyinCache.DiskCache")

            // One byte of the entry's file changed behind the cache's back.
            let file = folder.url.appending(path: key)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 1] ^= 0xFF
            try bytes.write(to: file)
            #expect(cache.data(forKey: key) == nil)
            #expect(recorder.events("damaged entry removed").first?.metadata == ["key": key])
        }
    }

    @Test(.hangGuard)
    func thePrefetcherLogsStartsEndsFailuresAndCancellationsOnTheCachesHook() async throws {
        // 1 KB/s: a 500 KB prefetch cannot end (for 8 minutes) before the test stops it, however
        // late a loaded machine runs the test (2 MB at 20 kB/s gave it 100 s); one the stop missed
        // still ends, and the checks below then fail.
        let origin = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 1k; }")
        try origin.serve(Data(count: 5_000), at: "/fast.webp")
        for index in 0..<2 { try origin.serve(Data(count: 500_000), at: "/slow/\(index).bin") }
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            let cache = try TwoTierCache(directory: folder.url, configuration: .init(log: recorder.handler))
            let prefetcher = try ImagePrefetcher(cache: cache, configuration: .init(maxConcurrentPrefetches: 1))
            let fast = origin.url("/fast.webp"), missing = origin.url("/missing.webp")

            prefetcher.startPrefetching(with: [fast, missing])
            await prefetcher.idle()
            let ended = try #require(recorder.events("prefetch ended").first)
            #expect(ended.subsystem == "DouyinCache.ImagePrefetcher" && ended.metadata == ["url": fast.absoluteString, "bytes": "5000", "source": "network"])
            let failed = try #require(recorder.events("prefetch failed").first)
            #expect(failed.level == .notice && failed.metadata["url"] == missing.absoluteString)

            // The first slow one runs until stopped; the second waits.
            let slow = (0..<2).map { origin.url("/slow/\($0).bin") }
            prefetcher.startPrefetching(with: slow)
            #expect(await waitUntil { cache.waiterCount(for: slow[0]) >= 1 }, "the first slow prefetch waits on its download")
            prefetcher.stopAll()
            await prefetcher.idle()
            #expect(recorder.events("prefetch started").compactMap { $0.metadata["url"] } == [fast, missing, slow[0]].map(\.absoluteString))
            let cancelled = Dictionary(uniqueKeysWithValues: recorder.events("prefetch cancelled").map { ($0.metadata["url"] ?? "", $0.metadata["was"] ?? "") })
            #expect(cancelled == [slow[0].absoluteString: "running", slow[1].absoluteString: "waiting"])
        }
    }

    @Test func aPrefetchersOwnHookWinsOverTheCaches() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(count: 1_000), at: "/a.webp")
        let cacheHook = LogRecorder(), own = LogRecorder()
        try await withTemporaryDirectory { folder in
            let cache = try TwoTierCache(directory: folder.url, configuration: .init(log: cacheHook.handler))
            let prefetcher = try ImagePrefetcher(cache: cache, configuration: .init(log: own.handler))
            prefetcher.startPrefetching(with: [origin.url("/a.webp")])
            await prefetcher.idle()
            #expect(own.events.map(\.message) == ["prefetch started", "prefetch ended"])
            #expect(cacheHook.events.allSatisfy { $0.subsystem != "DouyinCache.ImagePrefetcher" })
        }
    }
}
