import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Pseudo-random bytes that differ at every offset, so a misplaced byte shows.
func videoBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
        for index in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            raw[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
    }
    return data
}

@Suite("VideoCache against a real nginx", .serialized)
struct VideoCacheOriginTests {
    let nginx: NginxOrigin
    let folder: TemporaryDirectory

    init() async throws {
        nginx = try await NginxOrigin.start(extraLocations: """
            location /slow/ { limit_rate 400k; }
            location /norange/ { max_ranges 0; }
            location /gzip/ { gzip on; gzip_min_length 1; gzip_types *; }
            location /moved/ { rewrite ^/moved/(.*)$ /v/$1 redirect; }
            """)
        folder = try TemporaryDirectory()
    }

    /// The Range headers nginx received for `path`, in order.
    func ranges(of path: String) -> [String] {
        nginx.requests().filter { $0.uri == path }.map(\.range)
    }

    func cache(sizeLimit: Int64 = 1 << 30, configure: (inout VideoCache.Configuration) -> Void = { _ in }) throws -> VideoCache {
        var configuration = VideoCache.Configuration()
        configure(&configuration)
        return try VideoCache(directory: folder.url, sizeLimit: sizeLimit, configuration: configuration)
    }

    @Test func randomRangesEqualTheFile() async throws {
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/v/a.mp4")
        let reader = try cache().reader(for: nginx.url("/v/a.mp4"))
        defer { reader.close() }
        var random = SeededRandom(seed: 0xA11_0_4A)
        for _ in 0..<40 {
            let start = Int64.random(in: 0..<Int64(file.count), using: &random)
            let end = min(Int64(file.count), start + Int64.random(in: 1...400_000, using: &random))
            let data = try await reader.read(start..<end)
            #expect(data == file[Int(start)..<Int(end)], "bytes \(start)..<\(end), \(random)")
        }
        #expect(try await reader.read(0..<Int64(file.count)) == file)
    }

    @Test func aRangeReadTwiceIsFetchedOnce() async throws {
        defer { folder.remove() }
        let file = videoBytes(500_000)
        try nginx.serve(file, at: "/v/b.mp4")
        let cache = try cache()
        let reader = cache.reader(for: nginx.url("/v/b.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(1000..<201_000) == file[1000..<201_000])
        #expect(try await reader.read(1000..<201_000) == file[1000..<201_000])
        #expect(ranges(of: "/v/b.mp4") == ["bytes=1000-200999"])
        #expect(cache.statistics.originBytes == 200_000)
    }

    @Test func overlappingReadsFetchOnlyTheGap() async throws {
        defer { folder.remove() }
        let file = videoBytes(500_000)
        try nginx.serve(file, at: "/v/c.mp4")
        let reader = try cache().reader(for: nginx.url("/v/c.mp4"))
        defer { reader.close() }
        _ = try await reader.read(0..<100_000)
        #expect(try await reader.read(50_000..<200_000) == file[50_000..<200_000])
        _ = try await reader.read(300_000..<400_000)
        // Two missing ranges with a held run between them too long to coalesce: two requests.
        #expect(try await reader.read(0..<500_000) == file)
        #expect(ranges(of: "/v/c.mp4") == ["bytes=0-99999", "bytes=100000-199999", "bytes=300000-399999", "bytes=200000-299999", "bytes=400000-499999"])
        #expect(reader.cachedRanges.ranges == [0..<500_000])
    }

    @Test func smallHeldGapsAreCoalescedIntoOneRequest() async throws {
        defer { folder.remove() }
        let file = videoBytes(400_000)
        try nginx.serve(file, at: "/v/d.mp4")
        let reader = try cache { $0.coalescingGap = 10_000 }.reader(for: nginx.url("/v/d.mp4"))
        defer { reader.close() }
        _ = try await reader.read(100_000..<105_000)
        #expect(try await reader.read(0..<400_000) == file)
        #expect(ranges(of: "/v/d.mp4") == ["bytes=100000-104999", "bytes=0-399999"])
    }

    @Test func fiftyConcurrentReadersOfOneRangeCauseOneFetch() async throws {
        defer { folder.remove() }
        let file = videoBytes(1_000_000)
        try nginx.serve(file, at: "/slow/e.mp4")
        let cache = try cache()
        let url = nginx.url("/slow/e.mp4")
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let reader = cache.reader(for: url)
                    defer { reader.close() }
                    return try await reader.read(0..<300_000)
                }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(results.count == 50 && results.allSatisfy { $0 == file[0..<300_000] })
        #expect(ranges(of: "/slow/e.mp4") == ["bytes=0-299999"])
        #expect(cache.statistics.originBytes == 300_000)
    }

    @Test func aRestartKeepsTheCachedRanges() async throws {
        defer { folder.remove() }
        let file = videoBytes(600_000)
        try nginx.serve(file, at: "/v/f.mp4")
        let url = nginx.url("/v/f.mp4")
        do {
            let reader = try cache().reader(for: url)
            _ = try await reader.read(0..<100_000)
            _ = try await reader.read(400_000..<500_000)
            reader.close()
        }
        let restarted = try cache()
        #expect(restarted.cachedRanges(for: url).ranges == [0..<100_000, 400_000..<500_000])
        #expect(restarted.statistics.storedBytes == 200_000)
        let reader = restarted.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<600_000) == file)
        #expect(ranges(of: "/v/f.mp4").suffix(2) == ["bytes=100000-399999", "bytes=500000-599999"])
    }

    @Test func contentInfoComesFromTheOrigin() async throws {
        defer { folder.remove() }
        try nginx.serve(videoBytes(12_345), at: "/v/g.mp4")
        let reader = try cache().reader(for: nginx.url("/v/g.mp4"))
        defer { reader.close() }
        let info = try await reader.contentInfo()
        #expect(info.length == 12_345)
        #expect(info.etag?.hasPrefix("\"") == true)
        #expect(info.lastModified != nil)
        #expect(ranges(of: "/v/g.mp4") == ["bytes=0-1"])
    }

    @Test func readsPastTheEndAreClipped() async throws {
        defer { folder.remove() }
        let file = videoBytes(10_000)
        try nginx.serve(file, at: "/v/h.mp4")
        let reader = try cache().reader(for: nginx.url("/v/h.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(9_000..<20_000) == file[9_000...])
        #expect(try await reader.read(10_000..<20_000).isEmpty)
        #expect(try await reader.read(50_000..<60_000).isEmpty)
    }

    @Test func aRangeStartingPastTheEndIs416AndEmpty() async throws {
        defer { folder.remove() }
        try nginx.serve(videoBytes(10_000), at: "/v/i.mp4")
        let reader = try cache().reader(for: nginx.url("/v/i.mp4"))
        defer { reader.close() }
        // Nothing known yet: the request goes out, nginx answers 416 `bytes */10000`.
        #expect(try await reader.read(20_000..<30_000).isEmpty)
        #expect(nginx.requests().last?.status == 416)
        #expect(try await reader.contentInfo().length == 10_000)
    }

    @Test func streamingDeliversChunksInOrder() async throws {
        defer { folder.remove() }
        let file = videoBytes(1_500_000)
        try nginx.serve(file, at: "/slow/j.mp4")
        let reader = try cache().reader(for: nginx.url("/slow/j.mp4"))
        defer { reader.close() }
        var received = Data()
        var chunks = 0
        for try await chunk in reader.chunks(0..<1_500_000, chunkSize: 100_000) {
            #expect(chunk.count <= 100_000)
            received.append(chunk)
            chunks += 1
        }
        #expect(received == file)
        #expect(chunks >= 15)
    }

    @Test func anOriginIgnoringRangeIsUsedFromWhereTheReadStarts() async throws {
        defer { folder.remove() }
        let file = videoBytes(300_000)
        try nginx.serve(file, at: "/norange/k.mp4")
        let reader = try cache().reader(for: nginx.url("/norange/k.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(200_000..<250_000) == file[200_000..<250_000])
        #expect(nginx.requests().last?.status == 200)
        #expect(reader.cachedRanges.ranges == [200_000..<250_000])
        #expect(try await reader.read(0..<300_000) == file)
    }

    @Test func aRedirectIsFollowedWithItsRange() async throws {
        defer { folder.remove() }
        let file = videoBytes(400_000)
        try nginx.serve(file, at: "/v/r.mp4")
        let reader = try cache().reader(for: nginx.url("/moved/r.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(300_000..<350_000) == file[300_000..<350_000])
        let served = nginx.requests().map { "\($0.uri) \($0.status) \($0.range)" }
        #expect(served == ["/moved/r.mp4 302 bytes=300000-349999", "/v/r.mp4 206 bytes=300000-349999"])
        #expect(reader.cachedRanges.ranges == [300_000..<350_000])
    }

    @Test func gzipOnTheOriginDoesNotDefeatRange() async throws {
        defer { folder.remove() }
        let file = Data(repeating: 7, count: 200_000)  // compressible: gzip would apply if asked
        try nginx.serve(file, at: "/gzip/l.mp4")
        let reader = try cache().reader(for: nginx.url("/gzip/l.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(100_000..<100_100) == file[100_000..<100_100])
        #expect(nginx.requests().last?.status == 206)
    }

    @Test func aFileReplacedOnTheOriginIsDetectedAndRefetched() async throws {
        defer { folder.remove() }
        let old = videoBytes(200_000, seed: 1)
        try nginx.serve(old, at: "/v/m.mp4")
        let url = nginx.url("/v/m.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<50_000) == old[0..<50_000])
        let new = videoBytes(210_000, seed: 2)
        try nginx.serve(new, at: "/v/m.mp4")
        // If-Range carries the old ETag; nginx sees it changed and answers 200 with the new file.
        #expect(try await reader.read(100_000..<150_000) == new[100_000..<150_000])
        // The old version's bytes are gone; the new version's whole body is stored from its
        // first byte (issue 21: a new version found by a 200 restocks from byte 0), so the
        // start needs no request more.
        #expect(reader.cachedRanges.ranges == [0..<150_000])
        #expect(try await reader.read(0..<50_000) == new[0..<50_000])
        #expect(try await reader.contentInfo().length == 210_000)
        #expect(nginx.requests().filter { $0.uri == "/v/m.mp4" }.map(\.status) == [206, 200])
    }

    @Test func budgetEvictionKeepsTheSizeUnderTheLimit() async throws {
        defer { folder.remove() }
        let cache = try cache(sizeLimit: 2_500_000)
        for index in 0..<5 {
            try nginx.serve(videoBytes(1_000_000, seed: UInt64(index)), at: "/v/n\(index).mp4")
            let reader = cache.reader(for: nginx.url("/v/n\(index).mp4"))
            #expect(try await reader.read(0..<1_000_000) == videoBytes(1_000_000, seed: UInt64(index)))
            reader.close()
            #expect(cache.statistics.storedBytes <= 2_500_000)
        }
        #expect(cache.statistics.evictions == 3)
        #expect(cache.cachedRanges(for: nginx.url("/v/n0.mp4")).isEmpty)
        #expect(cache.cachedRanges(for: nginx.url("/v/n2.mp4")).isEmpty)
        #expect(cache.cachedRanges(for: nginx.url("/v/n3.mp4")).byteCount == 1_000_000)
        #expect(cache.cachedRanges(for: nginx.url("/v/n4.mp4")).byteCount == 1_000_000)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(files.filter { $0.hasSuffix(".mp4") }.count == 2)
    }

    @Test func anOpenReaderIsNeverEvictedAndOverBudgetStillStreams() async throws {
        defer { folder.remove() }
        let cache = try cache(sizeLimit: 1_500_000)
        let first = videoBytes(1_000_000, seed: 10)
        let second = videoBytes(1_000_000, seed: 11)
        try nginx.serve(first, at: "/v/o1.mp4")
        try nginx.serve(second, at: "/v/o2.mp4")
        let open = cache.reader(for: nginx.url("/v/o1.mp4"))
        defer { open.close() }
        _ = try await open.read(0..<1_000_000)
        let other = cache.reader(for: nginx.url("/v/o2.mp4"))
        defer { other.close() }
        #expect(try await other.read(0..<1_000_000) == second, "served from the origin without caching")
        #expect(open.cachedRanges.byteCount == 1_000_000)
        #expect(cache.statistics.storedBytes <= 1_500_000)
        #expect(cache.statistics.evictions == 0)
    }

    @Test func removeAndRemoveAllDropTheBytes() async throws {
        defer { folder.remove() }
        try nginx.serve(videoBytes(10_000), at: "/v/p.mp4")
        try nginx.serve(videoBytes(10_000), at: "/v/q.mp4")
        let cache = try cache()
        for path in ["/v/p.mp4", "/v/q.mp4"] {
            let reader = cache.reader(for: nginx.url(path))
            _ = try await reader.read(0..<10_000)
            reader.close()
        }
        // The downloads go on after the reads return (to the body's end and the index): an
        // entry still busy is emptied but keeps its files while this process holds its lock,
        // so the start-up below could not clean them (a fresh-clone run under load saw that).
        #expect(await waitUntil { !cache.isInUse(nginx.url("/v/p.mp4")) && !cache.isInUse(nginx.url("/v/q.mp4")) })
        cache.remove(for: nginx.url("/v/p.mp4"))
        #expect(cache.cachedRanges(for: nginx.url("/v/p.mp4")).isEmpty)
        #expect(cache.statistics.storedBytes == 10_000)
        cache.removeAll()
        #expect(cache.statistics.storedBytes == 0)
        #expect(cache.cachedRanges(for: nginx.url("/v/q.mp4")).isEmpty)
        _ = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        #expect(try entryFiles(in: folder.url).isEmpty)
    }

    @Test func prefetchCachesTheFirstBytes() async throws {
        defer { folder.remove() }
        let file = videoBytes(800_000)
        try nginx.serve(file, at: "/v/r.mp4")
        let cache = try cache()
        try await cache.prefetch(nginx.url("/v/r.mp4"), bytes: 256_000)
        #expect(cache.cachedRanges(for: nginx.url("/v/r.mp4")).ranges == [0..<256_000])
        let reader = cache.reader(for: nginx.url("/v/r.mp4"))
        defer { reader.close() }
        #expect(try await reader.read(0..<256_000) == file[0..<256_000])
        #expect(ranges(of: "/v/r.mp4") == ["bytes=0-255999"])
    }

    @Test func errorStatusIsTypedAndCachesNothing() async throws {
        defer { folder.remove() }
        let url = nginx.url("/v/absent.mp4")
        let reader = try cache().reader(for: url)
        defer { reader.close() }
        await #expect(throws: VideoCacheError.originStatus(404, url: url.absoluteString)) { try await reader.read(0..<100) }
        #expect(reader.cachedRanges.isEmpty)
    }

    @Test func aCacheKeyHookLetsURLsShareAnEntry() async throws {
        defer { folder.remove() }
        let file = videoBytes(50_000)
        try nginx.serve(file, at: "/v/s.mp4")
        let cache = try cache { $0.cacheKey = { $0.path } }
        let signed = URL(string: nginx.url("/v/s.mp4").absoluteString + "?sign=abc&expires=1")!
        let resigned = URL(string: nginx.url("/v/s.mp4").absoluteString + "?sign=def&expires=2")!
        let first = cache.reader(for: signed)
        _ = try await first.read(0..<50_000)
        first.close()
        let second = cache.reader(for: resigned)
        defer { second.close() }
        #expect(try await second.read(0..<50_000) == file)
        #expect(nginx.requests().count == 1)
    }
}
