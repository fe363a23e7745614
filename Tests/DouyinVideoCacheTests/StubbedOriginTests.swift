import DouyinSupport
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// A mock origin for faults a real nginx will not produce on demand: it answers every request
/// with what `respond` returns and records the requests.
final class StubOrigin: VideoOrigin, Sendable {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [Data]
    }

    private let requests = LockedBox<[OriginRequest]>([])
    private let respond: @Sendable (OriginRequest) -> Answer

    init(_ respond: @escaping @Sendable (OriginRequest) -> Answer) {
        self.respond = respond
    }

    var received: [OriginRequest] { requests.withLock { $0 } }

    func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        requests.withLock { $0.append(request) }
        let answer = respond(request)
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            for chunk in answer.body { continuation.yield(chunk) }
            continuation.finish()
        }
        return OriginResponse(status: answer.status, headers: answer.headers, body: body)
    }
}

@Suite("VideoCache against a stub origin (mock) for faults nginx cannot make")
struct StubbedOriginTests {
    let file = videoBytes(1000)
    let url = URL(string: "http://stub.invalid/v.mp4")!

    func read(_ range: Range<Int64>, from origin: StubOrigin) async throws -> (Data, ByteRangeSet) {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try VideoCache(directory: folder.url, sizeLimit: 1 << 20, origin: origin)
        let reader = cache.reader(for: url)
        defer { reader.close() }
        do {
            let data = try await reader.read(range)
            return (data, reader.cachedRanges)
        } catch {
            throw StubFailure(error: error, held: reader.cachedRanges)
        }
    }

    struct StubFailure: Error {
        let error: any Error
        let held: ByteRangeSet
    }

    func failure(_ range: Range<Int64>, from origin: StubOrigin) async -> StubFailure? {
        do {
            _ = try await read(range, from: origin)
            return nil
        } catch {
            return error as? StubFailure
        }
    }

    @Test func aContentRangeForOtherBytesIsRejected() async throws {
        let origin = StubOrigin { _ in .init(status: 206, headers: ["content-range": "bytes 5-104/1000"], body: [Data(count: 100)]) }
        let caught = try #require(await failure(0..<100, from: origin))
        #expect(caught.error as? VideoCacheError == .invalidResponse("Content-Range 'bytes 5-104/1000' for requested bytes 0-99"))
        #expect(caught.held.isEmpty, "nothing from a lying response is stored")
    }

    @Test(arguments: ["bytes 0-99", "bytes 0-99/50", "items 0-99/1000", "bytes 99-0/1000", "bytes -1-99/1000"])
    func anUnreadableContentRangeIsRejected(header: String) async throws {
        let origin = StubOrigin { _ in .init(status: 206, headers: ["content-range": header], body: [Data(count: 100)]) }
        let caught = try #require(await failure(0..<100, from: origin))
        guard case .invalidResponse = caught.error as? VideoCacheError else {
            Issue.record("expected invalidResponse, got \(caught.error)")
            return
        }
    }

    @Test func a206WithoutContentRangeIsRejected() async throws {
        let origin = StubOrigin { _ in .init(status: 206, headers: [:], body: [Data(count: 100)]) }
        let caught = try #require(await failure(0..<100, from: origin))
        #expect(caught.error as? VideoCacheError == .invalidResponse("206 without Content-Range"))
    }

    @Test func aTruncatedBodyIsAnErrorAndKeepsWhatArrived() async throws {
        let file = file
        let origin = StubOrigin { request in
            // Promises the bytes asked for, sends the first 60 and ends cleanly.
            let range = request.range
            return .init(status: 206, headers: ["content-range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/1000"],
                         body: [file[Int(range.lowerBound)..<Int(range.lowerBound) + 60]])
        }
        let caught = try #require(await failure(100..<300, from: origin))
        #expect(caught.error as? VideoCacheError == .truncatedBody(expected: 200, received: 60))
        #expect(caught.held.ranges == [100..<160])
    }

    @Test func anUnknownTotalIsAccepted() async throws {
        let file = file
        let origin = StubOrigin { request in
            let range = request.range
            return .init(status: 206, headers: ["content-range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/*"],
                         body: [file[Int(range.lowerBound)..<Int(range.upperBound)]])
        }
        let (data, held) = try await read(200..<400, from: origin)
        #expect(data == file[200..<400])
        #expect(held.ranges == [200..<400])
    }

    @Test func a416WithoutALengthEndsTheRead() async throws {
        let origin = StubOrigin { _ in .init(status: 416, headers: [:], body: []) }
        let (data, held) = try await read(2000..<3000, from: origin)
        #expect(data.isEmpty && held.isEmpty)
    }

    @Test func a200OfUnknownLengthIsReadOnToTheRange() async throws {
        let file = file
        let origin = StubOrigin { _ in .init(status: 200, headers: [:], body: stride(from: 0, to: 1000, by: 128).map { file[$0..<min($0 + 128, 1000)] }) }
        let (data, held) = try await read(300..<700, from: origin)
        #expect(data == file[300..<700])
        #expect(held.ranges == [300..<700], "the bytes before the read start are skipped, not stored")
        #expect(origin.received.count == 1)
    }

    /// Issue 21 item 1: a body longer than its Content-Range is a protocol error, and no byte
    /// outside the named range is stored or returned (it used to be stored past the range, up
    /// to the end of the request).
    @Test func aBodyLongerThanItsContentRangeIsAProtocolErrorAndStoresNothingOutsideIt() async throws {
        let file = file
        let origin = StubOrigin { _ in .init(status: 206, headers: ["content-range": "bytes 0-99/1000"], body: [file[0..<100], Data(repeating: 0xEE, count: 300)]) }
        let caught = try #require(await failure(0..<400, from: origin))
        guard case .invalidResponse = caught.error as? VideoCacheError else {
            Issue.record("expected invalidResponse, got \(caught.error)")
            return
        }
        #expect(caught.held.missing(in: 100..<1000) == [100..<1000], "junk stored: \(caught.held)")
    }

    @Test(arguments: [301, 403, 500, 503])
    func otherStatusesAreTyped(status: Int) async throws {
        let origin = StubOrigin { _ in .init(status: status, headers: [:], body: []) }
        let caught = try #require(await failure(0..<100, from: origin))
        #expect(caught.error as? VideoCacheError == .originStatus(status, url: "http://stub.invalid/v.mp4"))
    }
}
