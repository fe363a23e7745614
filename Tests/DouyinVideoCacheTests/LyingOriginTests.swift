import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
import Testing

/// Issue 21, items 1–4 and 11, end to end: a real `URLSessionOrigin` over loopback sockets
/// against a scripted server that lies the way real origins have (ScriptedHTTPServer writes
/// every answer byte for byte: no real nginx lies on demand). What each test proves: the
/// bytes read are one version's, exactly; none outside what an answer named is stored.
@Suite("VideoCache against origins that lie (scripted loopback server)", .serialized)
struct LyingOriginTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func cache() throws -> VideoCache {
        try VideoCache(directory: folder.url, sizeLimit: 1 << 30)
    }

    /// An origin serving `versions[current]`, answering Range and If-Range as RFC 9110 says,
    /// with the headers `headers(current)` gives for it.
    final class Versioned: Sendable {
        let versions: [Data]
        let current = LockedBox(0)
        let headers: @Sendable (Int) -> [(String, String)]
        /// Whether If-Range matched: strong ETag or date, compared as the scripted origin does.
        let matches: @Sendable (_ ifRange: String, _ version: Int) -> Bool

        init(_ versions: [Data], headers: @escaping @Sendable (Int) -> [(String, String)],
             matches: @escaping @Sendable (String, Int) -> Bool) {
            self.versions = versions
            self.headers = headers
            self.matches = matches
        }

        func answer(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response {
            let version = current.withLock { $0 }
            let file = versions[version]
            if let ifRange = request.ifRange, !matches(ifRange, version) {
                return .whole(file, headers: headers(version))
            }
            guard let range = request.byteRange else { return .whole(file, headers: headers(version)) }
            return .partial(file, range, headers: headers(version))
        }
    }

    // MARK: Item 1

    @Test(arguments: [false, true])
    func junkAfterTheNamedRangeIsNeverStoredNorReturned(withContentLength: Bool) async throws {
        defer { folder.remove() }
        let file = videoBytes(1_000_000, seed: 21)
        let junk = Data(repeating: 0xEE, count: 50_000)
        // Given an origin whose first answer names bytes 0-99999 and carries 50,000 more
        let server = try ScriptedHTTPServer { request, number in
            let range = request.byteRange ?? 0...(file.count - 1)
            guard number == 0 else { return .partial(file, range) }
            var headers = [("Content-Range", "bytes 0-99999/\(file.count)")]
            if withContentLength { headers.append(("Content-Length", "150000")) }
            return .init(status: 206, headers: headers, body: file[0..<100_000] + junk)
        }
        let url = server.url("/v.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        // When a read asks for 200,000 bytes, it fails as a protocol error
        await #expect(throws: VideoCacheError.self) { try await reader.read(0..<200_000) }
        #expect(reader.cachedRanges.missing(in: 100_000..<200_000) == [100_000..<200_000], "junk stored: \(reader.cachedRanges)")
        // Then an honest answer reads right, and nothing of the junk is ever served
        #expect(try await reader.read(0..<200_000) == file[0..<200_000])
    }

    // MARK: Item 2

    @Test func aNewTotalLengthUnderTheSameStrongETagIsNeverSpliced() async throws {
        defer { folder.remove() }
        let old = videoBytes(3_000_000, seed: 1), new = videoBytes(3_500_000, seed: 2)
        let origin = Versioned([old, new], headers: { _ in [("ETag", "\"same\"")] }, matches: { tag, _ in tag == "\"same\"" })
        let server = try ScriptedHTTPServer { request, _ in origin.answer(request) }
        let url = server.url("/v.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        // Given the first 1,000,000 bytes of the old file held
        #expect(try await reader.read(0..<1_000_000) == old[0..<1_000_000])
        // When the origin's file grows to 3.5 MB under the same strong ETag
        origin.current.withLock { $0 = 1 }
        // Then a read of it all is the new file, not the old head spliced onto the new tail
        let data = try await reader.read(0..<3_500_000)
        #expect(data.count == new.count)
        #expect(data == new, "old and new bytes spliced")
    }

    // MARK: Item 3

    @Test func aWeakETagKeptAcrossAnEditNeitherGoesIntoIfRangeNorSplicesTwoFiles() async throws {
        defer { folder.remove() }
        let old = videoBytes(2_000_000, seed: 3), new = videoBytes(2_000_000, seed: 4)
        let dates = ["Mon, 01 Jan 2024 00:00:00 GMT", "Tue, 02 Jan 2024 00:00:00 GMT"]
        // An origin that keeps its weak ETag across the edit, and (as RFC 9110 lets it) takes a
        // date in If-Range: a date that no longer matches gets the whole new file.
        let origin = Versioned([old, new], headers: { [("ETag", "W/\"w\""), ("Last-Modified", dates[$0])] },
                               matches: { validator, version in validator == dates[version] })
        let server = try ScriptedHTTPServer { request, _ in origin.answer(request) }
        let url = server.url("/w.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<500_000) == old[0..<500_000])
        origin.current.withLock { $0 = 1 }
        let data = try await reader.read(0..<2_000_000)
        #expect(data == new, "old and new bytes spliced")
        #expect(server.requests().allSatisfy { $0.ifRange == nil }, "If-Range with a weak tag or a date beside one: \(server.requests().map(\.headers))")
    }

    @Test func aWholeAnswerToIfRangeWithoutItsValidatorReplacesEveryHeldByte() async throws {
        defer { folder.remove() }
        let old = videoBytes(2_000_000, seed: 5), new = videoBytes(2_000_000, seed: 6)
        let date = "Mon, 01 Jan 2024 00:00:00 GMT"
        // An origin with dates only, whose 200 for a failed If-Range (the file changed) leaves
        // the date out: nothing in its headers differs from what is held but the answer itself.
        let origin = Versioned([old, new], headers: { $0 == 0 ? [("Last-Modified", date)] : [] }, matches: { _, version in version == 0 })
        let server = try ScriptedHTTPServer { request, _ in origin.answer(request) }
        let url = server.url("/s.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<500_000) == old[0..<500_000])
        origin.current.withLock { $0 = 1 }
        #expect(try await reader.read(0..<2_000_000) == new, "old and new bytes spliced")
        #expect(server.requests().contains { $0.ifRange == date })
        #expect(server.requests().count == 2, "the whole answer restocks from byte 0: no request more")
    }

    @Test func anOriginThatIgnoresRangeIsReadRightWithoutStartingOver() async throws {
        defer { folder.remove() }
        let file = videoBytes(1_000_000, seed: 11)
        let server = try ScriptedHTTPServer { _, _ in .whole(file, headers: [("ETag", "\"r\"")]) }
        let url = server.url("/r.mp4")
        let cache = try cache()
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<300_000) == file[0..<300_000])
        // A stream of the rest: a restart would end it with resourceChanged.
        var streamed = Data()
        for try await chunk in reader.chunks(0..<1_000_000, chunkSize: 100_000) { streamed.append(chunk) }
        #expect(streamed == file)
        #expect(server.requests().contains { $0.ifRange == "\"r\"" })
    }

    // MARK: Item 4

    @Test func anIndexWhoseLengthIsBelowItsRangesIsDiscardedAndTheReadIsWhole() async throws {
        defer { folder.remove() }
        let file = videoBytes(2_000_000, seed: 7)
        let server = try ScriptedHTTPServer { request, _ in .partial(file, request.byteRange ?? 0...(file.count - 1), headers: [("ETag", "\"f\"")]) }
        let url = server.url("/i.mp4")
        do {
            let reader = try cache().reader(for: url)
            #expect(try await reader.read(0..<2_000_000) == file)
            reader.close()
        }
        // Given the index edited to say the resource is 500,000 bytes while holding 2,000,000
        let index = folder.appending(MD5Digest.hex(Data(url.absoluteString.utf8)) + ".meta")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as? [String: Any])
        var info = try #require(json["info"] as? [String: Any])
        info["length"] = 500_000
        json["info"] = info
        try JSONSerialization.data(withJSONObject: json).write(to: index)
        // When a restarted cache reads 2,000,000 bytes, it gets them all, right
        let reader = try cache().reader(for: url)
        defer { reader.close() }
        let data = try await reader.read(0..<2_000_000)
        #expect(data.count == 2_000_000, "a short answer with success")
        #expect(data == file)
    }

    // MARK: Item 11

    @Test func aPrefetchAcrossAVersionChangeHoldsTheNewVersionsWholePrefix() async throws {
        defer { folder.remove() }
        let old = videoBytes(1_000_000, seed: 8), new = videoBytes(1_000_000, seed: 9)
        let origin = Versioned([old, new], headers: { [("ETag", "\"v\($0)\"")] }, matches: { tag, version in tag == "\"v\(version)\"" })
        let server = try ScriptedHTTPServer { request, _ in origin.answer(request) }
        let url = server.url("/p.mp4")
        let cache = try cache()
        // Given the first half of a prefix held from the old version
        try await cache.prefetch(url, bytes: 50_000)
        origin.current.withLock { $0 = 1 }
        // When the whole prefix is prefetched, crossing to the new version
        try await cache.prefetch(url, bytes: 100_000)
        // Then all of it is held, of the new version, and reading it needs no origin byte
        #expect(cache.cachedRanges(for: url).contains(0..<100_000), "\(cache.cachedRanges(for: url))")
        let requests = server.requests().count
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<100_000) == new[0..<100_000])
        #expect(server.requests().count == requests)
    }

    @Test func aPrefetchFromAnOriginThatChangesAtEveryRequestFailsInsteadOfLooping() async throws {
        defer { folder.remove() }
        let file = videoBytes(1_000_000, seed: 10)
        // Every answer carries a new ETag: a new version each time.
        let server = try ScriptedHTTPServer { request, number in
            .partial(file, request.byteRange ?? 0...(file.count - 1), headers: [("ETag", "\"n\(number)\"")])
        }
        let url = server.url("/n.mp4")
        let cache = try cache()
        try await cache.prefetch(url, bytes: 50_000)
        await #expect(throws: VideoCacheError.resourceChanged(url: url.absoluteString)) {
            try await cache.prefetch(url, bytes: 100_000)
        }
        #expect(server.requests().count < 20, "\(server.requests().count) requests")
    }
}
