import DouyinAPI
import DouyinModels
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// The pure rules behind items 15, 16 and 18, and the size limits of local files (item 13).
@Suite struct LimitsAndRulesTests {
    @Test func contentLengthRules() {
        func length(_ value: String?, te: String? = nil) -> Int? {
            try? ResponseFraming.declaredLength(contentLength: value, transferEncoding: te).get()
        }
        func refused(_ value: String?, te: String? = nil) -> Bool {
            if case .failure = ResponseFraming.declaredLength(contentLength: value, transferEncoding: te) { true } else { false }
        }
        #expect(!refused(nil) && length(nil) == nil)
        #expect(length("103") == 103)
        #expect(length(" 103\t") == 103)
        #expect(length("0") == 0)
        #expect(length("42, 42") == 42)
        for bad in ["42, 103", "+42", "-1", "4 2", "", "0x10", "100000000000000000000000", "1234567890123456789", "42,", "١٢"] {
            #expect(refused(bad), "\(bad)")
        }
        #expect(refused("42", te: "chunked"))
        #expect(!refused(nil, te: "chunked"))
        #expect(ResponseFraming.bodyMatches(declared: 42, received: 42, contentEncoding: nil))
        #expect(!ResponseFraming.bodyMatches(declared: 42, received: 103, contentEncoding: nil))
        #expect(!ResponseFraming.bodyMatches(declared: 42, received: 41, contentEncoding: "identity"))
        #expect(ResponseFraming.bodyMatches(declared: 42, received: 4_000, contentEncoding: "gzip"))
        #expect(ResponseFraming.bodyMatches(declared: nil, received: 4_000, contentEncoding: nil))
    }

    @Test func aPageIsARepeatOnlyWhenEveryItemCameBefore() {
        var repeats = PageRepeats()
        #expect(repeats.record(page: 0, keys: ["a", "b"]) == nil)
        // Shifted by one (a comment posted meanwhile): real, not a repeat.
        #expect(repeats.record(page: 1, keys: ["b", "c"]) == nil)
        #expect(repeats.record(page: 2, keys: ["b", "c"]) == 0)
        #expect(PageRepeats.key(Aweme(awemeID: "7")) == PageRepeats.key(Aweme(awemeID: "7", desc: "edited")))
        #expect(PageRepeats.key(Aweme(awemeID: "7")) != PageRepeats.key(Aweme(awemeID: "8")))
    }

    // Item 18. Before: `?x=1` + `user` made `/douyin/?x=1user?uid=…`, a request to the folder.
    @Test(arguments: ["?x=1", "?", "#frag", "?x=1#f"])
    func aBaseURLWithAQueryOrFragmentIsRefused(suffix: String) async throws {
        let backend = try await LocalBackend.start()
        let base = try #require(URL(string: backend.baseURL.absoluteString + suffix))
        let client = APIClient(baseURL: base)
        let error = await apiError { try await client.send(.user(uid: Known.uid)) }
        guard case .invalidRequest(.user, let reason) = error else {
            Issue.record("\(suffix): expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("query or a fragment"))
        #expect(try backend.requests().isEmpty)
    }

    // Item 13. Before: `Data(contentsOf:)` read a fallback file of any size whole.
    @Test func aFallbackFileOverItsMaximumIsNotUsed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let padded = try Fixtures.data("api/feed.json") + Data(repeating: UInt8(ascii: " "), count: 2 << 20)
        try padded.write(to: folder.appending("awemes.json"))
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        func call(maximum: Int) async -> (APIResult<[Aweme]>?, APIError?) {
            var configuration = APIClient.Configuration()
            configuration.retry.maximumRetries = 0
            var store = FallbackStore(directory: folder.url)
            store.maximumFileSize = maximum
            configuration.fallback = store
            let client = APIClient(baseURL: closed.baseURL, configuration: configuration)
            do {
                return (try await client.send(.awemePost(uid: Known.uid)), nil)
            } catch {
                return (nil, error as? APIError)
            }
        }
        let refused = await call(maximum: 1 << 20)
        guard case .transport? = refused.1 else {
            Issue.record("expected the network's failure, got \(String(describing: refused))")
            return
        }
        let taken = await call(maximum: 4 << 20)
        #expect(taken.0?.source == .fallback)
    }

    @Test func aFileOverTheUploadMaximumIsRefusedBeforeReading() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // Sparse: 2 GiB on paper, nothing on disk; reading it whole would take 2 GiB of memory.
        let path = folder.appending("big.png").path
        #expect(FileManager.default.createFile(atPath: path, contents: tinyPNG))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        #expect(throws: FileReadError.tooLarge(path: path, size: 2 << 30, limit: FilePart.defaultMaximumFileSize)) {
            try FilePart(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(throws: FileReadError.notARegularFile(path: folder.url.path)) {
            try FilePart(contentsOf: folder.url)
        }
        try tinyPNG.write(to: URL(fileURLWithPath: path))
        let part = try FilePart(contentsOf: URL(fileURLWithPath: path))
        #expect(part.data == tinyPNG)
        #expect(part.mediaType == "image/png")
        #expect(part.filename == "big.png")
    }
}
