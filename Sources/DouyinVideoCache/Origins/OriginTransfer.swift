import Foundation

/// One request to an origin, from its head to the end of its body, as chunks each tagged with
/// the resource bytes it holds: the one reading of an origin's answer that both the cached
/// path (a download storing for every reader) and the direct path (an uncached read) use.
///
/// The head is checked against the request (``OriginAnswer/parse(status:headers:for:)``) and
/// every chunk against the head's framing before anyone sees it (``BodyFraming``): a byte the
/// headers did not name never reaches a caller. A body that ends with ``OriginStoppedEarly``
/// is not a failure: the transfer reports where it got to, and the caller asks again.
struct OriginTransfer {
    /// How a body's reading ended.
    enum Ending: Equatable {
        /// The body ended (cleanly), or the caller needed no more.
        case finished
        /// The origin stopped the body early and asks to be asked again from where it got to.
        case stoppedEarly
    }

    /// The request this transfer answers.
    let request: OriginRequest
    /// What the head said.
    let answer: OriginAnswer
    private let body: AsyncThrowingStream<Data, any Error>
    private var framing: BodyFraming?

    /// Sends `request` to `origin` and reads the answer's head.
    static func start(_ request: OriginRequest, from origin: any VideoOrigin) async throws -> OriginTransfer {
        let response = try await origin.fetch(request)
        let answer = try OriginAnswer.parse(status: response.status, headers: response.headers, for: request)
        return OriginTransfer(request: request, answer: answer, body: response.body, framing: answer.framing)
    }

    /// Whether the answer has a body to read (not for a 416).
    var hasBody: Bool { framing != nil }

    /// The resource offset of the next body byte (after reading: where the body ended).
    var offset: Int64 { framing?.offset ?? 0 }

    /// Where the headers said the body ends (exclusive); `nil` when they did not say.
    var end: Int64? { framing?.end }

    /// Hands each body chunk to `take` with the resource bytes it holds, in order, until the
    /// body ends or `take` returns `false` (it needs no more; the transfer is then stopped).
    ///
    /// - Throws: `invalidResponse` for a chunk running past the framed end (before `take` sees
    ///   it), what `take` throws, and the body's own failure other than ``OriginStoppedEarly``.
    mutating func forEachChunk(_ take: (Data, Range<Int64>) throws -> Bool) async throws -> Ending {
        guard var framing else { return .finished }
        defer { self.framing = framing }
        do {
            for try await chunk in body {
                // Checked before any byte of the chunk is used: a byte past the end the headers
                // named is never stored (the whole answer is a protocol error).
                let bytes = try framing.take(chunk.count)
                if try !take(chunk, bytes) { break }
            }
        } catch is OriginStoppedEarly {
            return .stoppedEarly
        }
        return .finished
    }
}
