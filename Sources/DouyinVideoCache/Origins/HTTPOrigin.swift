import DouyinSupport
import Foundation

/// An HTTP origin over the package's transport: libcurl's multi interface on Linux (a waiting
/// transfer costs no CPU there), URLSession on Apple platforms. One ranged request per fetch.
///
/// Every request sends `Accept-Encoding: identity`: an origin that compresses ignores Range and
/// answers 200 with the whole body. Only `http` and `https` are fetched, redirects included.
/// The body comes with back-pressure: libcurl pauses the transfer while the cache is more than
/// ``Configuration/maxBufferedBytes`` behind it; a transport that cannot pause (URLSession) ends
/// the body with ``OriginStoppedEarly`` there, and the cache asks again from where it got.
public final class HTTPOrigin: VideoOrigin {
    /// How the origin buffers and waits.
    public struct Configuration: Sendable, Hashable {
        /// Bytes: the most body bytes held for a consumer that has fallen behind before the
        /// transfer is paused (or, without pause, stopped). Default 8,388,608 (8 MB); at least 1.
        public var maxBufferedBytes: Int = 8 << 20
        /// The longest wait for the next byte while the cache is not the one holding the
        /// transfer back; 60 s by default. Past it the read fails with `URLError.timedOut`.
        public var idleTimeout: Duration = .seconds(60)

        /// The default configuration.
        public init() {}
    }

    /// What this origin was made with (`maxBufferedBytes` raised to at least 1).
    public let configuration: Configuration
    private let transport: any HTTPTransport

    /// An origin on this platform's default transport, shared by the whole process (its
    /// connections are reused across origins).
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(transport: HTTPTransports.platformDefault, configuration: configuration)
    }

    /// An origin on `transport` (tests, or a caller's own choice).
    package init(transport: any HTTPTransport, configuration: Configuration = Configuration()) {
        var configuration = configuration
        configuration.maxBufferedBytes = max(1, configuration.maxBufferedBytes)
        self.configuration = configuration
        self.transport = transport
    }

    /// Whether `url` may be fetched from an origin: `http` or `https`, nothing else.
    static func isFetchable(_ url: URL) -> Bool {
        HTTPRequest.isFetchable(url)
    }

    /// Sends `Range: bytes=a-b` (and `If-Range` when given) and returns at the response head.
    ///
    /// - Throws: ``VideoCacheError/unsupportedScheme(url:)`` before any connection for a URL
    ///   that is not `http`/`https`; a redirect to one is not followed (its 3xx is
    ///   ``VideoCacheError/originStatus(_:url:)``); `CancellationError` when the task is
    ///   cancelled; ``VideoCacheError/network(_:)`` for a transport failure.
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        guard Self.isFetchable(request.url) else { throw VideoCacheError.unsupportedScheme(url: request.url.absoluteString) }
        var headers = HTTPHeaders()
        headers.add("Range", "bytes=\(request.range.lowerBound)-\(request.range.upperBound - 1)")
        if let validator = request.ifRange { headers.add("If-Range", validator) }
        let http = HTTPRequest(url: request.url, headers: headers, idleTimeout: configuration.idleTimeout,
                               bufferLimit: configuration.maxBufferedBytes)
        let response: HTTPResponse
        do {
            response = try await transport.send(http)
        } catch {
            throw Self.describe(error, url: request.url)
        }
        let body = response.body
        let stream = AsyncThrowingStream<Data, any Error> {
            do {
                return try await body.next()?.data
            } catch {
                throw Self.describe(error, url: request.url)
            }
        }
        return OriginResponse(status: response.head.status, headers: response.head.headers.lowercasedDictionary, body: stream)
    }

    /// A transport's error as the video cache's: cancellation stays `CancellationError`, a
    /// consumer that fell behind is ``OriginStoppedEarly``, a refused redirect the 3xx it was.
    private static func describe(_ error: any Error, url: URL) -> any Error {
        switch error {
        case let error as URLError: VideoCacheError.network(error)
        case HTTPTransportError.consumerFellBehind: OriginStoppedEarly()
        case HTTPTransportError.redirectRefused(let status, _), HTTPTransportError.tooManyRedirects(let status, _):
            VideoCacheError.originStatus(status, url: url.absoluteString)
        default: error
        }
    }
}
