import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// The proxy when what is behind it fails: an origin cut off mid-body, a live playlist, a full
/// or read-only disk (FaultInjector, a mock of the file calls: no real disk fills on demand,
/// and tests run as root, whom a read-only mode does not stop), two proxies over one cache
/// directory. Each ends in the right bytes, a short answer that says so, or a clean 5xx.
@Suite("Proxy over failing origins, disks and a shared cache", .serialized)
struct ProxyOriginFaultTests: ProxySuite {
    let fixture: ProxyFixture

    init() async throws {
        fixture = try await ProxyFixture(file: videoBytes(400_000, seed: 61), slowRate: "400k")
    }

    /// Given an origin that sends a honest head and then only part of the body before closing:
    /// the client gets a prefix of the right bytes (cut short, curl says so) or every right
    /// byte (the cache asked again), never a complete-looking wrong answer; a later request
    /// gets the whole file.
    @Test func anOriginCutOffMidBodyGivesAShortAnswerNeverAWrongOne() async throws {
        let file = file
        let origin = try ScriptedHTTPServer { request, number in
            let range = request.byteRange ?? 0...(file.count - 1)
            var answer = ScriptedHTTPServer.Response.partial(file, range)
            // The first answer promises the whole range and stops after 100 kB.
            if number == 0 { answer.body = answer.body.prefix(100_000) }
            return answer
        }
        let server = try started(try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30))
        let url = server.url(for: origin.url("/cut.mp4"))!
        let first = try await curl(url)
        let second = try await curl(url)
        let ranged = try await curl(url, ["-r", "150000-349999"])
        await server.stop()
        origin.stop()

        #expect(first.body == file.prefix(first.body.count), "a byte the origin never sent")
        if first.body.count < file.count {
            #expect(first.exitCode != 0, "a short body that looked complete to curl")
            #expect(first.status == 0 || first.status == 200 || first.status == 502)
        } else {
            #expect(first.status == 200)
        }
        #expect(second.status == 200 && second.body == file)
        #expect(ranged.status == 206 && ranged.body == file.subdata(in: 150_000..<350_000))
        folder.remove()
    }

    /// A media playlist without EXT-X-ENDLIST is live: served rewritten, kept nowhere, so the
    /// next request sees the origin's new version.
    @Test func aLivePlaylistIsServedRewrittenAndNotCached() async throws {
        let live = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\nseg0.ts\n"
        try nginx.serve(Data(live.utf8), at: "/live/index.m3u8")
        let server = try started(try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30))
        let playlist = nginx.url("/live/index.m3u8")
        let first = try await curl(server.url(for: playlist)!)
        let held = server.cache.cachedRanges(for: playlist)
        try nginx.serve(Data((live + "#EXTINF:2.0,\nseg1.ts\n").utf8), at: "/live/index.m3u8")
        let second = try await curl(server.url(for: playlist)!)
        let segment0 = server.url(for: nginx.url("/live/seg0.ts"))!.absoluteString
        let segment1 = server.url(for: nginx.url("/live/seg1.ts"))!.absoluteString
        await server.stop()

        let firstText = String(decoding: first.body, as: UTF8.self)
        let secondText = String(decoding: second.body, as: UTF8.self)
        #expect(first.status == 200)
        #expect(firstText == live.replacingOccurrences(of: "\nseg0.ts\n", with: "\n\(segment0)\n"))
        #expect(held.isEmpty, "a live playlist was kept: \(held)")
        #expect(secondText.contains(segment1), "the second request was served the old version")
        #expect(nginx.requests().filter { $0.uri == "/live/index.m3u8" }.count == 2)
        folder.remove()
    }

    /// A full disk (every data write fails with ENOSPC) and a read-only one (every open fails
    /// with EROFS): whole and ranged answers still carry the origin's bytes, or a clean 5xx.
    @Test(arguments: [(FaultInjector.Call.pwrite, ENOSPC), (.open, EROFS)])
    func aFailingDiskUnderTheProxyStillServesTheRightBytes(_ call: FaultInjector.Call, _ code: Int32) async throws {
        let faults = FaultInjector()
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: URLSessionOrigin(),
                                   configuration: VideoCache.Configuration(), files: FileIO(syscalls: Syscalls.system.injecting(faults)))
        faults.fail(call, with: code)
        let server = try started(cache)
        let url = server.url(for: nginx.url("/v/a.mp4"))!
        let whole = try await curl(url)
        let ranged = try await curl(url, ["-r", "1000-200999"])
        let again = try await curl(url)
        await server.stop()

        #expect(faults.injectedCount(call) > 0, "the injected fault was not the call that ran")
        for (answer, bytes) in [(whole, file), (ranged, file.subdata(in: 1000..<201_000)), (again, file)] {
            if answer.status >= 500 {
                #expect(answer.body.isEmpty)
            } else {
                #expect(answer.status == (bytes.count == file.count ? 200 : 206))
                #expect(answer.body == bytes)
            }
        }
        #expect(whole.status == 200, "a full or read-only disk need not stop the proxy: the bytes can come uncached")
        folder.remove()
    }

    /// A slow disk: an index write a reader's close makes (fsyncs of the data, the index and
    /// the folder) never runs on the socket loop's thread, which every other connection of the
    /// proxy waits on, nor on the async tasks' pool: on the index writers' queue. Here the close of a warm answer writes because the access time moved
    /// past the slack (an injected clock); the fsyncs are seen by a wrapper of the real call
    /// that records the thread making them.
    @Test func anIndexWriteOnCloseRunsOffTheSocketLoopsThread() async throws {
        let fsyncs = LockedBox<[(thread: String, late: Bool, onIndexQueue: Bool)]>([])
        let clock = LockedBox(Date())
        let late = LockedBox(false)
        var calls = Syscalls.system
        let fsync = calls.fsync
        calls.fsync = { fd in
            fsyncs.withLock { $0.append((ThreadName.current, late.withLock { $0 }, IndexWriteQueue.isCurrent)) }
            return fsync(fd)
        }
        var configuration = VideoCache.Configuration()
        configuration.now = { clock.withLock { $0 } }
        let cache = try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, origin: URLSessionOrigin(),
                                   configuration: configuration, files: FileIO(syscalls: calls))
        let first = try started(cache)
        let cold = try await curl(first.url(for: nginx.url("/v/a.mp4"))!)
        // Stopped, so the cold answer's own close is over before the clock moves.
        await first.stop()
        // Two minutes on: the next answer's close rewrites the index for its access time alone.
        clock.withLock { $0 += 120 }
        late.withLock { $0 = true }
        let server = try started(cache)
        let warm = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-r", "0-999"])
        await server.stop()

        #expect(cold.status == 200 && cold.body == file)
        #expect(warm.status == 206 && warm.body == file.prefix(1000))
        let seen = fsyncs.withLock { $0 }
        #expect(seen.contains { $0.late }, "the close wrote no index")
        #expect(!seen.contains { $0.thread == SocketLoop.threadName }, "\(seen.map(\.thread))")
        // The close's write (the late one) ran on the index writers' queue, not the tasks' pool.
        #expect(seen.filter { $0.late }.allSatisfy { $0.onIndexQueue }, "\(seen)")
        #expect(seen.contains { !$0.thread.isEmpty }, "thread names are not readable here")
        folder.remove()
    }

    /// Two caches (as two processes would) over one directory, each behind its own proxy,
    /// reading one cold file at once: both clients get every right byte, and a third cache
    /// opened afterwards serves what they stored.
    @Test func twoProxiesOverOneCacheDirectoryServeTheRightBytes() async throws {
        let directory = folder.appending("shared")
        let first = try started(try VideoCache(directory: directory, sizeLimit: 1 << 30))
        let second = try started(try VideoCache(directory: directory, sizeLimit: 1 << 30))
        let origin = nginx.url("/slow/a.mp4")
        async let a = curl(first.url(for: origin)!)
        async let b = curl(second.url(for: origin)!)
        async let c = curl(second.url(for: origin)!, ["-r", "300000-"])
        let (one, two, tail) = try await (a, b, c)
        await first.stop()
        await second.stop()
        #expect(one.status == 200 && one.body == file)
        #expect(two.status == 200 && two.body == file)
        #expect(tail.status == 206 && tail.body == file.subdata(in: 300_000..<file.count))

        let third = try started(try VideoCache(directory: directory, sizeLimit: 1 << 30))
        let replay = try await curl(third.url(for: origin)!)
        await third.stop()
        #expect(replay.body == file)
        folder.remove()
    }
}
