import DouyinTestSupport
import Foundation
import Testing

/// Pseudo-random bytes that differ at every offset, so a misplaced byte shows.
func integrityBytes(_ count: Int, seed: UInt64) -> Data {
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

/// Issue 21 items 1, 4 and 5 through `douyinkit video get`: wrong bytes, short answers and
/// traps on input nobody on the project wrote (a lying origin, a damaged index). A trap shows
/// as a signal exit here, not as a crash of the test process.
@Suite("douyinkit video get: exactly the bytes, or exit 1", .serialized)
struct VideoGetIntegrityTests {
    /// Item 1: junk after the named range was written out with exit 0, and stayed cached.
    @Test func junkPastTheContentRangeExitsOneAndIsNeverCached() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = integrityBytes(1_000_000, seed: 31)
        let server = try ScriptedHTTPServer { request, number in
            let range = request.byteRange ?? 0...(file.count - 1)
            guard number == 0 else { return .partial(file, range) }
            // Names bytes 0-99999, carries 50,000 more (no Content-Length: ends at the close).
            return .init(status: 206, headers: [("Content-Range", "bytes 0-99999/\(file.count)")],
                         body: file[0..<100_000] + Data(repeating: 0xEE, count: 50_000))
        }
        let url = server.url("/j.mp4").absoluteString
        let dir = folder.appending("cache").path
        let lying = try await Tool.run(["video", "get", url, "--range", "0-199999", "--dir", dir])
        #expect(lying.status == 1, "\(lying.stderr)")
        #expect(lying.stderr.contains("invalid origin response"), "\(lying.stderr)")
        #expect(lying.output.count <= 100_000 && lying.output == file.prefix(lying.output.count))
        let honest = try await Tool.run(["video", "get", url, "--range", "0-199999", "--dir", dir])
        #expect(honest.status == 0, "\(honest.stderr)")
        #expect(honest.output == file[0..<200_000], "junk served from the cache")
    }

    /// Writes `url`'s index after a first honest run, edited by `edit`.
    func editIndex(of url: URL, in dir: URL, _ edit: (inout [String: Any]) -> Void) throws {
        let index = dir.appendingPathComponent(VideoCacheFiles.indexName(of: url))
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as? [String: Any])
        edit(&json)
        try JSONSerialization.data(withJSONObject: json).write(to: index)
    }

    /// Item 4: an index whose length is below its ranges gave 500,000 of 2,000,000 bytes, exit 0.
    @Test func anIndexShorterThanItsRangesGivesTheWholeRange() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = integrityBytes(2_000_000, seed: 32)
        try nginx.serve(file, at: "/s.mp4")
        let url = nginx.url("/s.mp4")
        let dir = folder.appending("cache")
        #expect(try await Tool.run(["video", "get", url.absoluteString, "--range", "0-1999999", "--dir", dir.path]).status == 0)
        try editIndex(of: url, in: dir) { json in
            var info = json["info"] as? [String: Any] ?? [:]
            info["length"] = 500_000
            json["info"] = info
        }
        let result = try await Tool.run(["video", "get", url.absoluteString, "--range", "0-1999999", "--dir", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.count == 2_000_000 && result.output == file, "\(result.output.count) bytes")
    }

    /// Item 5: a range from -2^63 trapped ("Distance is not representable in Int"); ranges
    /// reaching 2^63-1 trapped at start-up while another process held the entry.
    @Test(arguments: [false, true])
    func aDamagedIndexNeitherTrapsNorServesAWrongByte(heldElsewhere: Bool) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = integrityBytes(600_000, seed: 33)
        try nginx.serve(file, at: "/d.mp4")
        let url = nginx.url("/d.mp4")
        let dir = folder.appending("cache")
        #expect(try await Tool.run(["video", "get", url.absoluteString, "--range", "0-599999", "--dir", dir.path]).status == 0)
        try editIndex(of: url, in: dir) { json in
            var info = json["info"] as? [String: Any] ?? [:]
            info.removeValue(forKey: "length")
            json["info"] = info
            json["ranges"] = ["ranges": heldElsewhere
                ? [[0, Int64.max - 10], [Int64.max - 5, Int64.max]]
                : [[Int64.min, 100], [200, 600_000]]]
        }
        let lock = try heldElsewhere ? await ForeignEntryLock.take(directory: dir, url: url) : nil
        defer { lock?.release() }
        let result = try await Tool.run(["video", "get", url.absoluteString, "--range", "0-599999", "--dir", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == file)
        if heldElsewhere { #expect(result.stderr.contains("cache=uncached"), "\(result.stderr)") }
    }
}
