import Foundation

/// One ranged request to an origin.
public struct OriginRequest: Sendable, Hashable {
    /// The resource.
    public var url: URL
    /// The bytes wanted; the upper bound may lie past the end of the resource.
    public var range: Range<Int64>
    /// The `If-Range` validator (the stored ETag or Last-Modified), if any.
    public var ifRange: String?

    /// A request for `range` of `url`.
    public init(url: URL, range: Range<Int64>, ifRange: String? = nil) {
        self.url = url
        self.range = range
        self.ifRange = ifRange
    }
}

/// An origin's answer: status and headers, then the body as it arrives.
public struct OriginResponse: Sendable {
    /// The HTTP status (or the equivalent for a non-HTTP origin).
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body in chunks; ends early with an error when the transfer breaks. Stopping the
    /// iteration (or cancelling its task) cancels the transfer.
    public var body: AsyncThrowingStream<Data, any Error>

    /// A response with the given parts.
    public init(status: Int, headers: [String: String], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Where a video cache gets the bytes it does not hold: an HTTP origin, a file, a test stub.
public protocol VideoOrigin: Sendable {
    /// Starts fetching `request.range` and returns once the response head has arrived.
    func fetch(_ request: OriginRequest) async throws -> OriginResponse
}
