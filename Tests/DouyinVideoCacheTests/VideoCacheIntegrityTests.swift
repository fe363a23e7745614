import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing

/// The files of a cache directory that belong to entries: everything but the shared lock file.
func entryFiles(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "lock" }.sorted()
}

/// Replaces a file nginx serves with `data`, with a modification time `secondsAhead` from now:
/// nginx's ETag and Last-Modified come from the mtime, whose resolution is a second, so a new
/// version written in the same second would otherwise keep the old validators.
func replaceServedFile(_ nginx: NginxOrigin, at path: String, with data: Data, secondsAhead: TimeInterval = 1000) throws {
    try nginx.serve(data, at: path)
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: secondsAhead)], ofItemAtPath: nginx.root.appendingPathComponent(path).path)
}

/// Issue 12, cases 1, 4 and 9: wrong bytes, writes outside the cache, files left behind.
@Suite("VideoCache integrity", .serialized)
struct VideoCacheIntegrityTests {
    let nginx: NginxOrigin
    let folder: TemporaryDirectory

    init() async throws {
        nginx = try await NginxOrigin.start()
        folder = try TemporaryDirectory()
    }

    var cacheDirectory: URL { folder.appending("cache") }

    func cache() throws -> VideoCache {
        try VideoCache(directory: cacheDirectory, sizeLimit: 1 << 30)
    }

    func key(_ url: URL) -> String { MD5Digest.hex(Data(url.absoluteString.utf8)) }

    // MARK: Case 1: old and new versions spliced

    @Test(.hangGuard)
    func oldAndNewVersionsSplicedReadReturnsOnlyTheNewVersion() async throws {
        defer { folder.remove() }
        // Given the first 1 MB of version one cached
        let old = videoBytes(3_000_000, seed: 11), new = videoBytes(3_000_000, seed: 12)
        try nginx.serve(old, at: "/v/splice.mp4")
        let url = nginx.url("/v/splice.mp4")
        let cache = try cache()
        let first = cache.reader(for: url)
        #expect(try await first.read(0..<1_000_000) == old[0..<1_000_000])
        first.close()
        // When the origin's file is replaced (same length, new validators) and a read spans
        // held and missing bytes
        try replaceServedFile(nginx, at: "/v/splice.mp4", with: new)
        let second = cache.reader(for: url)
        defer { second.close() }
        let answer = try await second.read(500_000..<3_000_000)
        // Then the answer is the new version only, and no old byte is left on disk
        #expect(answer.count == 2_500_000)
        #expect(answer == new[500_000..<3_000_000], "bytes of the old version were spliced in")
        #expect(try await second.read(0..<3_000_000) == new)
    }

    @Test(.hangGuard)
    func oldAndNewVersionsSplicedStreamEndsWithResourceChanged() async throws {
        defer { folder.remove() }
        let old = videoBytes(3_000_000, seed: 21), new = videoBytes(3_000_000, seed: 22)
        try nginx.serve(old, at: "/v/stream.mp4")
        let url = nginx.url("/v/stream.mp4")
        let cache = try cache()
        let first = cache.reader(for: url)
        _ = try await first.read(0..<1_000_000)
        first.close()
        try replaceServedFile(nginx, at: "/v/stream.mp4", with: new)
        let second = cache.reader(for: url)
        defer { second.close() }
        var received = Data()
        var failure: (any Error)?
        do {
            for try await chunk in second.chunks(500_000..<3_000_000, chunkSize: 100_000) { received.append(chunk) }
        } catch {
            failure = error
        }
        // The held old bytes went out first; what follows them is the error, never new bytes.
        #expect(failure as? VideoCacheError == .resourceChanged(url: url.absoluteString), "\(String(describing: failure))")
        #expect(received == old[500_000..<(500_000 + received.count)])
        #expect(received.count <= 500_000)
        let third = cache.reader(for: url)
        defer { third.close() }
        #expect(try await third.read(0..<3_000_000) == new)
    }

    // MARK: Case 4: path traversal

    /// Fills the cache with the first 100 KB of `path`, then edits its index's data file name.
    func plantIndexPointing(to dataFileName: String, path: String, file: Data) async throws -> URL {
        try nginx.serve(file, at: path)
        let url = nginx.url(path)
        do {
            let reader = try cache().reader(for: url)
            _ = try await reader.read(0..<100_000)
            reader.close()
        }
        let metaURL = cacheDirectory.appendingPathComponent(key(url) + ".meta")
        var index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: metaURL)) as? [String: Any])
        index["dataFileName"] = dataFileName
        try JSONSerialization.data(withJSONObject: index).write(to: metaURL)
        return url
    }

    @Test(arguments: ["../victim.mp4", "ABSOLUTE", "sub/../../victim.mp4"])
    func pathTraversalThroughTheIndexNeverTouchesAFileOutside(planted: String) async throws {
        defer { folder.remove() }
        let victim = folder.appending("victim.mp4")
        let precious = Data("precious bytes, not a video".utf8)
        try precious.write(to: victim)
        let file = videoBytes(300_000, seed: 41)
        let url = try await plantIndexPointing(to: planted == "ABSOLUTE" ? victim.path : planted, path: "/v/trav.mp4", file: file)
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<300_000) == file)
        #expect(try Data(contentsOf: victim) == precious, "the file the index named was written")
    }

    @Test func aSymlinkPlantedAsTheDataFileIsNeverFollowed() async throws {
        defer { folder.remove() }
        let victim = folder.appending("victim.mp4")
        let precious = Data("precious bytes, not a video".utf8)
        try precious.write(to: victim)
        let file = videoBytes(200_000, seed: 51)
        try nginx.serve(file, at: "/v/link.mp4")
        let url = nginx.url("/v/link.mp4")
        let cache = try cache()
        // Planted after start-up, where the entry's data file will be.
        try FileManager.default.createSymbolicLink(atPath: cacheDirectory.appendingPathComponent(key(url) + ".mp4").path, withDestinationPath: victim.path)
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<200_000) == file)
        #expect(reader.uncachedReason != nil)
        #expect(try Data(contentsOf: victim) == precious, "written through the symlink")
    }

    @Test func aSymlinkPlantedOverAFilledDataFileIsDroppedAtStartUp() async throws {
        defer { folder.remove() }
        let victim = folder.appending("victim.mp4")
        let precious = Data(repeating: 7, count: 100_000)
        try precious.write(to: victim)
        let file = videoBytes(200_000, seed: 52)
        try nginx.serve(file, at: "/v/link2.mp4")
        let url = nginx.url("/v/link2.mp4")
        do {
            let reader = try cache().reader(for: url)
            _ = try await reader.read(0..<100_000)
            reader.close()
        }
        // The index says 100 KB are held; the data file becomes a link to another file.
        let dataPath = cacheDirectory.appendingPathComponent(key(url) + ".mp4").path
        try FileManager.default.removeItem(atPath: dataPath)
        try FileManager.default.createSymbolicLink(atPath: dataPath, withDestinationPath: victim.path)
        let cache = try cache()
        #expect(cache.cachedRanges(for: url).isEmpty, "bytes through a symlink are not held")
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<200_000) == file)
        #expect(try Data(contentsOf: victim) == precious)
    }

    @Test func aSymlinkPlantedAsTheIndexIsNotRead() async throws {
        defer { folder.remove() }
        let file = videoBytes(100_000, seed: 61)
        let url = try await plantIndexPointing(to: "\(MD5Digest.hex(Data(nginx.url("/v/meta.mp4").absoluteString.utf8))).mp4", path: "/v/meta.mp4", file: file)
        // The index moves outside; a link to it stands in its place, and the data file is
        // replaced by zeros the index claims are the video.
        let metaPath = cacheDirectory.appendingPathComponent(key(url) + ".meta").path
        let outside = folder.appending("outside.meta")
        try FileManager.default.moveItem(atPath: metaPath, toPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: metaPath, withDestinationPath: outside.path)
        try Data(count: 100_000).write(to: cacheDirectory.appendingPathComponent(key(url) + ".mp4"))
        let cache = try cache()
        #expect(cache.cachedRanges(for: url).isEmpty)
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<100_000) == file, "zeros served on a linked index's word")
    }

    // MARK: Case 3: a damaged data file

    @Test func aDamagedBlockIsRefetchedAfterARestartNotServed() async throws {
        defer { folder.remove() }
        let file = videoBytes(1_000_000, seed: 71)
        try nginx.serve(file, at: "/v/crc.mp4")
        let url = nginx.url("/v/crc.mp4")
        do {
            let reader = try cache().reader(for: url)
            _ = try await reader.read(0..<1_000_000)
            reader.close()
        }
        // Same length, other bytes: only a checksum can tell.
        let handle = try FileHandle(forWritingTo: cacheDirectory.appendingPathComponent(key(url) + ".mp4"))
        try handle.seek(toOffset: 300_000)
        handle.write(Data(repeating: 0, count: 100))
        try handle.close()
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<1_000_000) == file, "damaged bytes served")
        // Only the damaged 256 KB block is fetched again.
        #expect(nginx.requests().map(\.range) == ["bytes=0-999999", "bytes=262144-524287"])
        #expect(try await reader.read(0..<1_000_000) == file)
        #expect(nginx.requests().count == 2)
    }

    // MARK: Case 9: a 404 leaves nothing behind

    @Test func aNotFoundLeavesNoEmptyIndexOrDataFile() async throws {
        defer { folder.remove() }
        let url = nginx.url("/v/absent.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        await #expect(throws: VideoCacheError.originStatus(404, url: url.absoluteString)) { try await reader.read(0..<100) }
        reader.close()
        #expect(try entryFiles(in: cacheDirectory).isEmpty)
    }
}
