import DouyinLogging
import DouyinSupport
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Issue 26 §3: the video cache tells a log hook about its origin downloads, the resources it
/// drops to stay under its size limit and the indexes it discards; nothing without a hook.
@Suite("VideoCache logging")
struct VideoCacheLoggingTests {
    @Test func aRangeFromNginxIsLoggedWithItsBytesAndAnEvictionIsLogged() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(repeating: 1, count: 300_000), at: "/a.mp4")
        try origin.serve(Data(repeating: 2, count: 300_000), at: "/b.mp4")
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            var configuration = VideoCache.Configuration()
            configuration.log = recorder.handler
            // Room for one video, not two: reading the second drops the first.
            let cache = try VideoCache(directory: folder.url, sizeLimit: 400_000, configuration: configuration)
            let a = origin.url("/a.mp4"), b = origin.url("/b.mp4")
            try await cache.prefetch(a, bytes: 100_000)

            let started = recorder.events("download started")
            #expect(started.map { $0.metadata["url"] } == [a.absoluteString])
            #expect(started.first?.metadata["range"] == "0-99999")
            let ended = recorder.events("download ended")
            #expect(ended.map { $0.metadata["bytes"] } == ["100000"])
            #expect(ended.first?.subsystem == "DouyinVideoCache.VideoCache")

            try await cache.prefetch(a, bytes: 300_000)
            try await cache.prefetch(b, bytes: 300_000)
            let evicted = recorder.events("resource evicted to stay under the size limit")
            #expect(evicted.count == 1)
            #expect(evicted.first?.metadata["bytes"] == "300000")
            #expect(evicted.first?.level == .notice)
            #expect(recorder.events("download failed").isEmpty)
        }
    }

    /// An eviction is told with no lock of the cache held: here the log hook reads the cache
    /// (the ranges of the very resource whose download made room). Told from under that
    /// download's entry lock, as it was, the hook stood still on the lock its own thread held;
    /// with a change subscriber of that resource subscribing at the same moment, two threads
    /// deadlocked. The read runs in a task, so a regression fails the wait (after 60 s) instead
    /// of hanging the run; the stuck download still holds one thread of the task pool after.
    @Test func anEvictionIsToldWithNoLockOfTheCacheHeld() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(repeating: 1, count: 300_000), at: "/a.mp4")
        try origin.serve(Data(repeating: 2, count: 300_000), at: "/b.mp4")
        let a = origin.url("/a.mp4"), b = origin.url("/b.mp4")
        let cacheForHook = LockedBox<VideoCache?>(nil)
        let seenByHook = LockedBox<[ByteRangeSet]>([])
        try await withTemporaryDirectory { folder in
            var configuration = VideoCache.Configuration()
            configuration.log = LogHandler { event in
                guard event.message == "resource evicted to stay under the size limit", let cache = cacheForHook.withLock({ $0 }) else { return }
                let held = cache.cachedRanges(for: b)
                seenByHook.withLock { $0.append(held) }
            }
            let cache = try VideoCache(directory: folder.url, sizeLimit: 400_000, configuration: configuration)
            cacheForHook.withLock { $0 = cache }
            try await cache.prefetch(a, bytes: 300_000)
            let second = Task { try await cache.prefetch(b, bytes: 300_000) }
            let finished = await waitUntil(limit: .seconds(60)) { seenByHook.withLock { !$0.isEmpty } }
            #expect(finished, "the log hook never returned: it was called under the cache's lock")
            guard finished else { return }
            try await second.value
            #expect(seenByHook.withLock { $0.count } == 1)
            #expect(cache.cachedRanges(for: b) == ByteRangeSet([0..<300_000]))
        }
        cacheForHook.withLock { $0 = nil }
    }

    @Test func anIndexThatContradictsItselfIsLoggedAsDiscarded() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(repeating: 3, count: 50_000), at: "/c.mp4")
        try await withTemporaryDirectory { folder in
            do {
                let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 20)
                try await cache.prefetch(origin.url("/c.mp4"), bytes: 50_000)
            }
            // Given the index rewritten to say the resource is 10 bytes long, with 50,000 held
            let index = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).first { $0.hasSuffix(".meta") })
            let path = folder.appending(index).path
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            var info = try #require(json["info"] as? [String: Any], "\(json)")
            info["length"] = 10
            json["info"] = info
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))

            // When a cache with a hook starts over the directory
            let recorder = LogRecorder()
            var configuration = VideoCache.Configuration()
            configuration.log = recorder.handler
            _ = try VideoCache(directory: folder.url, sizeLimit: 1 << 20, configuration: configuration)

            // Then the discarded index is told
            let discarded = recorder.events("index discarded as inconsistent")
            #expect(discarded.count == 1, "\(recorder.events) index: \(json)")
            #expect(discarded.first?.metadata["file"] == index)
        }
    }
}
