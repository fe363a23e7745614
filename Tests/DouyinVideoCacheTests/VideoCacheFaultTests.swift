import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

@Suite("VideoCache when things go wrong", .serialized)
struct VideoCacheFaultTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    /// A cache whose key is the URL's path, so a restarted nginx on another port hits the same entry.
    func pathKeyedCache(origin: any VideoOrigin = URLSessionOrigin()) throws -> VideoCache {
        var configuration = VideoCache.Configuration()
        configuration.cacheKey = { $0.path }
        return try VideoCache(directory: folder.url, sizeLimit: 1 << 30, origin: origin, configuration: configuration)
    }

    @Test(.hangGuard)
    func nginxStoppedMidTransferKeepsWhatArrivedAndRefetchesOnlyTheRest() async throws {
        defer { folder.remove() }
        let file = videoBytes(2_000_000)
        // The first 400 KB at once, the rest at 1 KB/s (over 25 minutes): the transfer cannot end
        // before the reader, however late a loaded machine runs it, has passed 300 kB and stopped
        // nginx (at 100 kB/s it had 17 s; a whole-suite run has stood still for 80).
        let first = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate_after 400k; limit_rate 1k; }")
        try first.serve(file, at: "/slow/a.mp4")
        // One version on both servers: nginx's validators come from the mtime, so the second
        // copy gets the first one's (written a second later, it would be a new version).
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: first.root.appendingPathComponent("slow/a.mp4").path)
        let cache = try pathKeyedCache()
        let reader = cache.reader(for: first.url("/slow/a.mp4"))
        defer { reader.close() }
        var received = 0
        var failure: (any Error)?
        do {
            for try await chunk in reader.chunks(0..<2_000_000, chunkSize: 50_000) {
                received += chunk.count
                if received >= 300_000 { first.stop() }
            }
        } catch {
            failure = error
        }
        let error = try #require(failure as? VideoCacheError, "a stopped origin is a typed error")
        switch error {
        case .network, .truncatedBody: break
        default: Issue.record("unexpected error \(error)")
        }
        let held = reader.cachedRanges
        #expect(held.ranges.count == 1 && held.ranges[0].lowerBound == 0)
        let kept = held.ranges[0].upperBound
        #expect(kept >= 300_000 && kept < 2_000_000)

        let second = try await NginxOrigin.start()
        try second.serve(file, at: "/slow/a.mp4")
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: second.root.appendingPathComponent("slow/a.mp4").path)
        let again = cache.reader(for: second.url("/slow/a.mp4"))
        defer { again.close() }
        #expect(try await again.read(0..<2_000_000) == file)
        #expect(second.requests().map(\.range) == ["bytes=\(kept)-1999999"])
    }

    @Test(.hangGuard)
    func cancellingAReaderStopsItsFetch() async throws {
        defer { folder.remove() }
        // Until the test creates `/open`, an answer sends its first 512 KB at once (the first
        // 256 KB chunk) and the rest at 1 KB/s (8 minutes), so the first fetch cannot end before
        // the cancel reaches it however late a loaded machine delivers it (at 400 kB/s it had
        // ~7 s, and once that was not enough); a fetch the cancel missed still ends, and the
        // checks below then fail. The second reader's fetch, asked after `/open`, runs at full
        // speed.
        let file = videoBytes(1_000_000)
        let nginx = try await NginxOrigin.start(extraLocations: """
            location /slow/ {
                set $rate 1k;
                if (-f $document_root/open) { set $rate 0; }
                limit_rate_after 512k;
                limit_rate $rate;
            }
            """)
        try nginx.serve(file, at: "/slow/b.mp4")
        let cache = try pathKeyedCache()
        let url = nginx.url("/slow/b.mp4")
        let reader = cache.reader(for: url)
        for try await _ in reader.chunks(0..<1_000_000) { break }  // stop after the first chunk
        reader.close()
        try nginx.serve(Data(), at: "/open")
        let kept = cache.cachedRanges(for: url).ranges.first?.upperBound ?? 0
        let next = cache.reader(for: url)
        defer { next.close() }
        #expect(try await next.read(0..<1_000_000) == file)
        // Had the first fetch gone on, the second reader would have waited for it instead.
        let requests = nginx.requests()
        #expect(requests.count == 2)
        #expect(requests.contains { $0.range == "bytes=0-999999" && $0.bytesSent < 1_000_000 })
        #expect(requests.contains { $0.range.hasPrefix("bytes=") && $0.range != "bytes=0-999999" && $0.range.hasSuffix("-999999") })
        #expect(kept > 0)
    }

    @Test func aFetchAnotherReaderNeedsSurvivesOneReadersCancellation() async throws {
        defer { folder.remove() }
        let file = videoBytes(600_000)
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 400k; }")
        try nginx.serve(file, at: "/slow/c.mp4")
        let cache = try pathKeyedCache()
        let url = nginx.url("/slow/c.mp4")
        let staying = cache.reader(for: url)
        defer { staying.close() }
        let leaving = cache.reader(for: url)
        var firstChunks = staying.chunks(0..<600_000).makeAsyncIterator()
        var received = try #require(try await firstChunks.next())  // the fetch is running
        for try await _ in leaving.chunks(0..<600_000) { break }
        leaving.close()
        while let chunk = try await firstChunks.next() { received.append(chunk) }
        #expect(received == file)
        #expect(nginx.requests().count == 1)
    }

    @Test func anUnwritableDataFileStillServesFromTheOrigin() async throws {
        defer { folder.remove() }
        let file = videoBytes(100_000)
        let nginx = try await NginxOrigin.start()
        try nginx.serve(file, at: "/v/d.mp4")
        let url = nginx.url("/v/d.mp4")
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        // A directory where the data file should be: open(2) fails even for root.
        let dataPath = folder.appending(MD5Digest.hex(Data(url.absoluteString.utf8)) + ".mp4")
        try FileManager.default.createDirectory(at: dataPath, withIntermediateDirectories: false)
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(10_000..<60_000) == file[10_000..<60_000])
        #expect(reader.cachedRanges.isEmpty)
        #expect(cache.statistics.storedBytes == 0)
    }

    @Test func aMissingCacheDirectoryParentIsATypedError() throws {
        let blocker = folder.appending("file")
        try Data("x".utf8).write(to: blocker)
        defer { folder.remove() }
        #expect(throws: VideoCacheError.self) {
            try VideoCache(directory: blocker.appendingPathComponent("cache"), sizeLimit: 1 << 20)
        }
    }

    @Test func aCorruptIndexIsDroppedAtStartUp() async throws {
        defer { folder.remove() }
        let file = videoBytes(50_000)
        let nginx = try await NginxOrigin.start()
        try nginx.serve(file, at: "/v/e.mp4")
        let url = nginx.url("/v/e.mp4")
        do {
            let reader = try VideoCache(directory: folder.url, sizeLimit: 1 << 30).reader(for: url)
            _ = try await reader.read(0..<50_000)
            reader.close()
        }
        let metadata = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).first { $0.hasSuffix(".meta") })
        try Data("{ not json".utf8).write(to: folder.appending(metadata))
        let restarted = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        #expect(restarted.cachedRanges(for: url).isEmpty)
        #expect(try entryFiles(in: folder.url).isEmpty, "index and data both gone")
        let reader = restarted.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<50_000) == file)
    }

    @Test func aDataFileShorterThanItsIndexIsTrusted() async throws {
        defer { folder.remove() }
        let file = videoBytes(80_000)
        let nginx = try await NginxOrigin.start()
        try nginx.serve(file, at: "/v/f.mp4")
        let url = nginx.url("/v/f.mp4")
        do {
            let reader = try VideoCache(directory: folder.url, sizeLimit: 1 << 30).reader(for: url)
            _ = try await reader.read(0..<80_000)
            reader.close()
        }
        let data = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).first { $0.hasSuffix(".mp4") })
        try FileHandle(forWritingTo: folder.appending(data)).truncate(atOffset: 30_000)
        let restarted = try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
        #expect(restarted.cachedRanges(for: url).ranges == [0..<30_000])
        let reader = restarted.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<80_000) == file)
        // The cut block no longer matches its checksum: the whole block is fetched again.
        #expect(nginx.requests().last?.range == "bytes=0-79999")
    }
}
