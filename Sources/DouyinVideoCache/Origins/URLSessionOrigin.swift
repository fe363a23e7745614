import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP origin over `URLSession` explicitly: an ``HTTPOrigin`` on a URLSession transport of
/// its own (the default on Apple platforms; on Linux, where libcurl is the default, for a
/// caller who wants URLSession's configuration: its proxies, protocol classes, TLS settings).
///
/// URLSession cannot pause a transfer, so a consumer more than
/// ``HTTPOrigin/Configuration/maxBufferedBytes`` behind has its body ended with ``OriginStoppedEarly``
/// after the buffered bytes; the cache then asks again from where it got to.
public final class URLSessionOrigin: VideoOrigin {
    /// How the origin buffers: ``HTTPOrigin``'s configuration.
    public typealias Configuration = HTTPOrigin.Configuration

    /// Ends a body whose consumer fell more than ``HTTPOrigin/Configuration/maxBufferedBytes`` behind the
    /// network: the ``VideoOrigin`` contract's "stopped early, ask again".
    public typealias ConsumerFellBehind = OriginStoppedEarly

    private let origin: HTTPOrigin

    /// What this origin was made with (`maxBufferedBytes` raised to at least 1).
    public var configuration: Configuration { origin.configuration }

    /// An origin with its own session made from a copy of `session` (timeouts, connections per
    /// host; `.default` by default); its URL cache is switched off: the video cache keeps the bytes.
    public init(session: URLSessionConfiguration = .default, configuration: Configuration = Configuration()) {
        origin = HTTPOrigin(transport: URLSessionTransport(configuration: session), configuration: configuration)
    }

    /// Whether `url` may be fetched from an origin: `http` or `https`, nothing else.
    static func isFetchable(_ url: URL) -> Bool {
        HTTPOrigin.isFetchable(url)
    }

    /// Sends `Range: bytes=a-b` (and `If-Range` when given) and returns at the response head;
    /// as ``HTTPOrigin/fetch(_:)``.
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        try await origin.fetch(request)
    }
}
