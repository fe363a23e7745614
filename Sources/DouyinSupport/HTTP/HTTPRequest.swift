import Foundation

/// One HTTP request as the transport seam takes it: what to send, and the rules the transport
/// enforces while it is answered (deadline, idle limit, redirects, decoding, buffering).
package struct HTTPRequest: Sendable {
    /// A request body: bytes in memory or a regular file's contents, sent with their length.
    package enum Body: Sendable, Hashable {
        /// These bytes.
        case data(Data)
        /// The contents of the file at this path, read as the request goes out (and again from
        /// the start when a 307/308 sends the request once more).
        case file(URL)
    }

    /// The resource: `http` or `https` only (anything else fails with `URLError.unsupportedURL`
    /// before a connection is made).
    package var url: URL
    /// The method, such as `GET`; `GET` by default.
    package var method: String
    /// Header fields sent as given (the transport adds `Host`, framing and, with
    /// ``decodesContent``, `Accept-Encoding`).
    package var headers: HTTPHeaders
    /// The body; `nil` (the default) sends none.
    package var body: Body?
    /// When the whole exchange (redirects, head and body) must be over; `nil` (the default):
    /// no deadline. Past it the exchange fails with `URLError.timedOut`, however busy the
    /// connection was.
    package var deadline: ContinuousClock.Instant?
    /// The longest wait for the next byte while the consumer is not the one holding the
    /// transfer back (a paused transfer is not idle); 60 s by default. Past it: `URLError.timedOut`.
    package var idleTimeout: Duration
    /// How many redirects are followed; 10 by default, 0 to hand every 3xx back as the answer.
    /// Only to `http`/`https` (any other scheme is ``HTTPTransportError/redirectRefused(status:location:)``);
    /// 307 and 308 keep the method and body, 301/302/303 turn a POST into a GET without body.
    package var maximumRedirects: Int
    /// Whether the transport asks for and undoes `Content-Encoding` (gzip, deflate, br, zstd);
    /// off by default: `Accept-Encoding: identity` is sent and the body's bytes are what the
    /// origin stored, so Content-Length and Content-Range count them.
    package var decodesContent: Bool
    /// Bytes held for a consumer that has not taken them before the transfer is paused
    /// (libcurl) or stopped with ``HTTPTransportError/consumerFellBehind`` (URLSession, which
    /// cannot pause); 1 MiB by default, at least 1.
    package var bufferLimit: Int
    /// Told how many body bytes went out of how many (on the transport's thread); `nil` (the
    /// default) reports nothing.
    package var uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?

    /// A `GET` of `url` with the defaults above.
    package init(url: URL, method: String = "GET", headers: HTTPHeaders = HTTPHeaders(), body: Body? = nil,
                 deadline: ContinuousClock.Instant? = nil, idleTimeout: Duration = .seconds(60), maximumRedirects: Int = 10,
                 decodesContent: Bool = false, bufferLimit: Int = 1 << 20,
                 uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil) {
        self.uploadProgress = uploadProgress
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.idleTimeout = idleTimeout
        self.maximumRedirects = maximumRedirects
        self.decodesContent = decodesContent
        self.bufferLimit = bufferLimit
    }

    /// Whether `url` may be fetched: `http` or `https`, nothing else. URLs come from data
    /// (feeds, API answers, redirects), and libcurl speaks 25 protocols, `file` among them.
    package static func isFetchable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host != nil
    }

    /// Whether `a` and `b` have the same origin (scheme, host and port, RFC 6454).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}

/// Why the transport ended an exchange other than with a network error (those are `URLError`)
/// or a cancellation (`CancellationError`).
package enum HTTPTransportError: Error, Sendable, Hashable {
    /// A redirect named a scheme other than http(s), or a Location that is not a URL; no
    /// request was sent there.
    case redirectRefused(status: Int, location: String)
    /// More redirects than the request allows; `location` is the one not followed.
    case tooManyRedirects(status: Int, location: String)
    /// The consumer fell more than ``HTTPRequest/bufferLimit`` behind a transport that cannot
    /// pause (URLSession): the bytes before it stand, the rest was not read.
    case consumerFellBehind
}
