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
    /// iteration (or cancelling its task) cancels the transfer. Ending it with
    /// ``OriginStoppedEarly`` (after some chunks) asks the cache to ask again from where it got.
    public var body: AsyncThrowingStream<Data, any Error>

    /// A response with the given parts.
    public init(status: Int, headers: [String: String], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Where a video cache gets the bytes it does not hold: an HTTP origin, a file, a test stub.
///
/// - Important: A body may end with ``OriginStoppedEarly`` when the origin chose to stop the
///   transfer (its consumer fell behind, a buffer filled) rather than because it failed: the
///   bytes delivered before it stand, and the cache asks again, with a new request, for what
///   it still wants. Any other error ending a body is a failure of that transfer.
public protocol VideoOrigin: Sendable {
    /// Starts fetching `request.range` and returns once the response head has arrived.
    func fetch(_ request: OriginRequest) async throws -> OriginResponse
}

/// Ends an origin's response body that stopped early on purpose, not in failure: the chunks
/// before it are good, and the video cache asks again from the first byte it did not get.
/// ``URLSessionOrigin`` ends a body with it when its consumer falls more than
/// ``HTTPOrigin/Configuration/maxBufferedBytes`` behind the network.
public struct OriginStoppedEarly: Error, Sendable, Hashable {
    /// The error value; it carries nothing, the bytes delivered say where the body stopped.
    public init() {}
}
