import Foundation

/// The one seam every HTTP request of the package goes through: the image downloader, the
/// video origin (and through it the proxy, the preloader and sessions), the cover pipeline and
/// the API client.
///
/// A transport carries one exchange, without following redirects: it sends the request,
/// returns at the final head (interim 1xx skipped), and then delivers the body as the network
/// gives it, holding at most ``HTTPRequest/bufferLimit`` bytes ahead of the reader.
/// ``send(_:)`` follows redirects above it by one rule for every transport.
///
/// What a status, a length or a range *means* stays above the seam (``ResponseFraming`` and
/// the video cache's `OriginAnswer`): a transport reports bytes, the clients judge them.
///
/// - Throws: `URLError` for a network failure (one map for every transport: `.timedOut` for
///   the deadline and the idle limit, `.cannotConnectToHost`, `.serverCertificateUntrusted`,
///   …), `CancellationError` when the calling task or the body is cancelled, and
///   ``HTTPTransportError`` for the seam's own refusals.
package protocol HTTPTransport: Sendable {
    /// Sends `request` once (a 3xx is an answer like any other) and returns at its head.
    /// Cancel the calling task to abandon it before the head; after, drop or cancel the body.
    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request`, following up to ``HTTPRequest/maximumRedirects`` redirects: only to
    /// `http`/`https`; 307/308 keep method and body (RFC 9110 §15.4.8-9); 301/302 turn a POST
    /// and 303 any method but HEAD into a body-less GET (what browsers and curl do);
    /// `Authorization` and `Cookie` are not sent to another origin. The deadline covers every hop.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        var hops = 0
        while true {
            let response = try await exchange(request)
            let status = response.head.status
            guard [301, 302, 303, 307, 308].contains(status), let location = response.head.headers["Location"],
                  request.maximumRedirects > 0 else { return response }
            response.body.cancel()
            guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL, HTTPRequest.isFetchable(next) else {
                throw HTTPTransportError.redirectRefused(status: status, location: location)
            }
            hops += 1
            guard hops <= request.maximumRedirects else {
                throw HTTPTransportError.tooManyRedirects(status: status, location: next.absoluteString)
            }
            if !HTTPRequest.sameOrigin(next, request.url) {
                // A token or cookie the caller set for one origin is not handed to another:
                // libcurl drops them when it follows a redirect itself, and here the seam does.
                request.headers.remove("Authorization")
                request.headers.remove("Cookie")
            }
            request.url = next
            let method = request.method.uppercased()
            if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
                request.method = "GET"
                request.body = nil
                request.headers.remove("Content-Type")
                request.headers.remove("Content-Length")
            }
        }
    }
}

/// The transports the package can use, and the one it uses unless told otherwise.
package enum HTTPTransports {
    /// This platform's default: libcurl's multi interface on Linux (a waiting transfer costs
    /// no CPU there, where FoundationNetworking's URLSession spins a core), URLSession on Apple
    /// platforms. One instance for the process, so every client shares its connections.
    package static var platformDefault: any HTTPTransport {
        #if canImport(CCurl)
        CurlTransport.shared
        #else
        URLSessionTransport.shared
        #endif
    }
}
