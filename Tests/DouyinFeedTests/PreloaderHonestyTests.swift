import DouyinFeed
import DouyinSupport
import DouyinTestSupport
import DouyinVideoCache
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Issue 21 items 10 and 11 at the preloader: a video job says it holds bytes only when they
/// are held and indexed. A full disk and a failing index write are injected with
/// DouyinSupport's `FaultInjector` (a mock of the C calls, named as such: no real disk fills
/// on demand) under a real nginx.
@Suite("Preloader reports only what the cache kept", .serialized)
struct PreloaderHonestyTests {
    /// Preloads the window around item 0 (one video ahead, no images) through a cache whose
    /// file calls go through `faults`; returns the events and the statistics.
    func preload(_ origin: FeedOrigin, faults: FaultInjector, in folder: TemporaryDirectory) async throws -> ([FeedPreloader.Event], PreloadScheduler.Statistics) {
        let files = FileIO(syscalls: Syscalls.system.injecting(faults))
        let videos = try VideoCache(directory: folder.appending("video"), sizeLimit: 1 << 30, origin: URLSessionOrigin(),
                                    configuration: VideoCache.Configuration(), files: files)
        var configuration = FeedPreloader.Configuration()
        configuration.planner.ahead = 2
        configuration.planner.behind = 0
        configuration.planner.prefixBytes = 200_000
        let preloader = FeedPreloader(videoCache: videos, imageCache: nil, configuration: configuration)
        preloader.setItems(origin.items(), current: 0)
        preloader.preloadWithoutPlayback()
        await preloader.idle()
        defer { preloader.cancel() }
        return (preloader.takeEvents(), preloader.statistics)
    }

    @Test func aFullDiskIsAFailureNamingENOSPCNeverHeldBytes() async throws {
        let origin = try await FeedOrigin(count: 3, videoSize: 500_000)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        faults.fail(.pwrite, with: ENOSPC)
        let (events, statistics) = try await preload(origin, faults: faults, in: folder)
        #expect(events.count == 2)
        for event in events {
            #expect(event.failure?.contains("No space left on device") == true, "\(event)")
            #expect(event.bytes == 0 && event.uncachedReason == nil)
        }
        #expect(statistics.failures == 2)
    }

    @Test func anIndexThatCannotBeWrittenIsAFailure() async throws {
        let origin = try await FeedOrigin(count: 2, videoSize: 500_000)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        // The data is written; the index's rename into place fails (a mock: a disk that took
        // the bytes but has no room left for the index's new inode).
        faults.fail(.rename, with: ENOSPC)
        let (events, statistics) = try await preload(origin, faults: faults, in: folder)
        let event = try #require(events.first)
        #expect(event.failure?.contains("No space left on device") == true, "\(event)")
        #expect(event.bytes == 0)
        #expect(statistics.failures == 1)
    }

    @Test func aHealthyDiskHoldsAndIndexesEveryByte() async throws {
        let origin = try await FeedOrigin(count: 2, videoSize: 500_000)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (events, statistics) = try await preload(origin, faults: FaultInjector(), in: folder)
        #expect(events.map(\.bytes) == [200_000] && events.allSatisfy { $0.failure == nil && $0.fetched })
        #expect(statistics.failures == 0)
    }

    // MARK: The verdict, as a value

    @Test func theVerdictSaysCachedOrNetworkOnlyForBytesHeldAndIndexed() {
        let range: Range<Int64> = 0..<1_000
        let all = ByteRangeSet([0..<1_000]), none = ByteRangeSet()
        func decide(before: ByteRangeSet = ByteRangeSet(), after: ByteRangeSet, length: Int64? = 5_000, error: (any Error)? = nil,
                    uncached: VideoCacheError? = nil, persist: VideoCacheError? = nil) -> VideoJobVerdict {
            VideoJobVerdict.decide(range: range, length: length, before: before, after: after, fetchError: error, uncached: uncached, persistError: persist)
        }
        #expect(decide(after: all) == .held(bytes: 1_000, fetched: true))
        #expect(decide(before: all, after: all) == .held(bytes: 1_000, fetched: false))
        #expect(decide(after: ByteRangeSet([0..<600]), length: 600) == .held(bytes: 600, fetched: true), "a shorter resource is held whole")
        // Item 9: another process holds the entry — uncached, never cached.
        #expect(decide(after: none, uncached: .entryInUseElsewhere) == .uncached(reason: "the entry is in use by another process"))
        // Item 10: a read-only directory or a planted name — a failure, never cached.
        guard case .failed = decide(after: none, uncached: .readOnlyDirectory),
              case .failed = decide(after: none, uncached: .file(name: "x.mp4", call: "open (not a regular file)", errno: EINVAL)),
              case .failed = decide(after: all, persist: .file(name: "x.meta", call: "rename", errno: ENOSPC)),
              // Item 11: bytes dropped under the job (a new version) — a failure, not a smaller count.
              case .failed(let reason) = decide(after: ByteRangeSet([500..<1_000])) else {
            Issue.record("a job that kept nothing was not a failure")
            return
        }
        #expect(reason.contains("500 of 1000"))
    }
}
