import DouyinCache
import DouyinFeed
import DouyinTestSupport
import DouyinVideoCache
import DouyinWebP
import Foundation
import Testing

/// A cover paused after its first frame and resumed against a real loopback origin that lies
/// (``ScriptedHTTPServer``: what no nginx does on demand). The pause is forced as in
/// ``CoverPauseTests``: one slot, A's first fetch held at an ``OriginGate`` until B waits for
/// that slot, so A pauses as soon as its frame shows. A's first answer is an honest 206 for the
/// file's first `held` bytes (an origin may send fewer bytes than asked), so the bytes held at
/// the pause are known; A's later requests get whatever the case scripts.
@Suite("Cover pipeline: a resumed cover is never spliced from a lying origin", .serialized)
struct CoverResumeLyingOriginTests {
    static let file = (try? Fixtures.data("webp/bench/cover-lossy-0.webp")) ?? Data()
    static let other = (try? Fixtures.data("webp/bench/cover-lossy-1.webp")) ?? Data()
    /// A new version of A: other bytes, another length.
    static let changed = (try? Fixtures.data("webp/bench/cover-lossless.webp")) ?? Data()

    /// The fewest leading bytes of A that show its first frame, plus a margin: what the first
    /// answer sends, so the download pauses with exactly these bytes held.
    static let held: Int = {
        var count = 64
        while count < file.count, (try? WebPAnimation.firstFrame(ofPartialData: file.prefix(count))) == nil { count += 64 }
        return min(count + 100, file.count - 1)
    }()

    struct Run {
        /// A's requests as the origin received them (first, resume, any refetch).
        var requests: [ScriptedHTTPServer.Request]
        /// What the image cache holds for A afterwards; `nil`: nothing.
        var cached: Data?
    }

    /// Runs the pause and resume; `later` answers A's requests after the first (index 1 = the
    /// resume, 2 = a refetch) given the validators `first` put on A's first answer.
    func run(first: [(String, String)], later: @escaping @Sendable (ScriptedHTTPServer.Request, Int) -> ScriptedHTTPServer.Response) async throws -> Run {
        let file = Self.file, other = Self.other, held = Self.held
        let server = try ScriptedHTTPServer { request, number in
            if request.target == "/b.webp" { return .whole(other) }
            // B's download runs while A is paused, so it is request 1; A's are 0, 2, 3 …
            return number == 0 ? .partial(file, 0...(held - 1), headers: first) : later(request, number - 1)
        }
        defer { server.stop() }
        let a = server.url("/a.webp"), b = server.url("/b.webp")
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let images = try TwoTierCache(directory: folder.appending("images"))
        let gate = OriginGate(holding: a)
        var configuration = CoverPipeline.Configuration()
        configuration.maxConcurrentDownloads = 1
        let covers = try CoverPipeline(imageCache: images, origin: GatedOrigin(gate: gate), configuration: configuration)

        let frameA = Task { try await covers.firstFrame(for: a) }
        await gate.waitForArrival()
        let frameB = Task { try await covers.firstFrame(for: b) }
        await covers.joined(b)
        await gate.open()
        #expect(try await frameA.value == (try WebPAnimation(data: file).frame(at: 0)))
        #expect(try await frameB.value == (try WebPAnimation(data: other).frame(at: 0)))
        await covers.idle()
        #expect(covers.statistics.pausedDownloads == 1, "A paused holding its first \(held) bytes")
        return Run(requests: server.requests().filter { $0.target == "/a.webp" }, cached: images.cachedData(for: a))
    }

    static let strong: [(String, String)] = [("ETag", "\"v1\""), ("Last-Modified", "Wed, 02 Dec 2026 10:00:00 GMT")]

    /// How the resume's 206 lies about A's rest (`bytes S-…/T` with S the bytes held).
    enum Lie: String, CaseIterable, CustomTestStringConvertible {
        /// An honest range to the end, then 64 junk bytes (no Content-Length: the close ends it).
        case junkPastTheRange
        /// The range stops 64 bytes short of the end, the body runs to the end as junk: the
        /// count adds up to the file's length, so only the framing tells.
        case rangeNamesFewerBytesThanTheBody
        /// The range and total are honest, but the body stops halfway and the connection closes.
        case bodyShorterThanTheRange
        /// The range starts 10 bytes before the bytes held (an overlap to splice).
        case rangeStartsBeforeTheBytesHeld

        var testDescription: String { rawValue }

        func answer(_ file: Data, held: Int) -> ScriptedHTTPServer.Response {
            let last = file.count - 1, junk = Data(repeating: 0x41, count: 64)
            func partial(_ range: String, _ body: Data) -> ScriptedHTTPServer.Response {
                ScriptedHTTPServer.Response(status: 206, headers: CoverResumeLyingOriginTests.strong + [("Content-Range", "bytes \(range)/\(file.count)")], body: body)
            }
            return switch self {
            case .junkPastTheRange: partial("\(held)-\(last)", file[held...] + junk)
            case .rangeNamesFewerBytesThanTheBody: partial("\(held)-\(last - 64)", file[held...(last - 64)] + junk)
            case .bodyShorterThanTheRange: partial("\(held)-\(last)", Data(file[held..<(held + (file.count - held) / 2)]))
            case .rangeStartsBeforeTheBytesHeld: partial("\(held - 10)-\(last)", Data(file[(held - 10)...]))
            }
        }
    }

    /// Issue 21 item 1 for covers: a resumed body must match its Content-Range exactly and start
    /// at the bytes held; when it does not, the cover is fetched whole again (no If-Range) and
    /// the cache holds the origin's real file byte for byte — never held bytes plus junk.
    @Test(arguments: Lie.allCases)
    func aResumedBodyThatDoesNotMatchItsRangeIsNeverSpliced(_ lie: Lie) async throws {
        let file = Self.file, held = Self.held
        let run = try await run(first: Self.strong) { _, index in
            index == 1 ? lie.answer(file, held: held) : .whole(file, headers: Self.strong)
        }
        #expect(run.requests.count == 3, "first, resume, whole again: \(run.requests)")
        #expect(run.requests.dropFirst().first?.byteRange?.lowerBound == held)
        #expect(run.requests.last?.byteRange?.lowerBound == 0 && run.requests.last?.ifRange == nil)
        #expect(run.cached == file, "cached \(run.cached?.count ?? -1) bytes, the file has \(file.count)")
    }

    /// Issue 21 item 2 for covers: the same strong ETag on the resume but another total length is
    /// a new version: nothing of the old bytes is kept, the new file is fetched whole.
    @Test func theSameStrongETagWithAnotherTotalIsANewFileNeverSpliced() async throws {
        let changed = Self.changed, held = Self.held
        #expect(held < changed.count)
        let run = try await run(first: Self.strong) { _, index in
            index == 1 ? .partial(changed, held...(changed.count - 1), headers: Self.strong) : .whole(changed, headers: Self.strong)
        }
        #expect(run.requests.dropFirst().first?.ifRange == "\"v1\"")
        #expect(run.cached == changed, "cached \(run.cached?.count ?? -1) bytes, the new file has \(changed.count)")
    }

    /// Issue 21 item 3 for covers: a weak ETag (with a Last-Modified that then changes) gives no
    /// usable If-Range — not the tag, not the date beside it — so the rest is asked for whole,
    /// and the new file, answered by a 200, is what the cache holds.
    @Test func aWeakETagSendsNoIfRangeAndTheNewFileComesWhole() async throws {
        let changed = Self.changed
        let weak = [("ETag", "W/\"v1\""), ("Last-Modified", "Wed, 02 Dec 2026 10:00:00 GMT")]
        let run = try await run(first: weak) { _, _ in
            // The lying origin ignores Range and any If-Range: a 200 with the new version.
            .whole(changed, headers: [("ETag", "W/\"v1\""), ("Last-Modified", "Thu, 03 Dec 2026 10:00:00 GMT")])
        }
        #expect(run.requests.count == 2)
        #expect(run.requests.allSatisfy { $0.ifRange == nil }, "\(run.requests.map(\.ifRange))")
        #expect(run.requests.last?.byteRange?.lowerBound == 0)
        #expect(run.cached == changed)
    }

    /// The If-Range rule of RFC 9110 §13.1.5, as sent by the resume: a strong tag; a date only
    /// when there is no tag at all; otherwise none (and the whole file is asked for).
    struct Validators: Sendable, CustomTestStringConvertible {
        var name: String
        var headers: [(String, String)]
        /// The If-Range the resume must carry; `nil`: none, and a request from byte 0.
        var expected: String?
        var testDescription: String { name }
    }

    static let date = "Wed, 02 Dec 2026 10:00:00 GMT"
    static let validatorCases: [Validators] = [
        Validators(name: "strong tag and date", headers: [("ETag", "\"v1\""), ("Last-Modified", date)], expected: "\"v1\""),
        Validators(name: "weak tag and date", headers: [("ETag", "W/\"v1\""), ("Last-Modified", date)], expected: nil),
        Validators(name: "weak tag alone", headers: [("ETag", "W/\"v1\"")], expected: nil),
        Validators(name: "date alone", headers: [("Last-Modified", date)], expected: date),
        Validators(name: "no validator", headers: [], expected: nil),
    ]

    /// If-Range never carries a weak tag nor a date beside a tag; with no usable validator the
    /// resume asks for the whole file. An honest origin's file ends up cached either way.
    @Test(arguments: validatorCases)
    func ifRangeCarriesAStrongTagOrADateOnlyWithoutATag(_ validators: Validators) async throws {
        let file = Self.file, held = Self.held
        let run = try await run(first: validators.headers) { request, _ in
            if let start = request.byteRange?.lowerBound, start > 0, request.ifRange != nil {
                return .partial(file, start...(file.count - 1), headers: validators.headers)
            }
            return .whole(file, headers: validators.headers)
        }
        let resume = try #require(run.requests.dropFirst().first)
        #expect(resume.ifRange == validators.expected)
        #expect(resume.byteRange?.lowerBound == (validators.expected == nil ? 0 : held))
        #expect(run.cached == file)
    }
}
