import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a call to the API failed: each case names the endpoint and keeps what the server or
/// the network said. Hashable, so errors that keep one (DouyinChat's) can be compared.
public enum APIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with the envelope's `code` ≠ 0 (HTTP 2xx); `message` as sent ("" when absent).
    case server(endpoint: Endpoint, code: Int, message: String)
    /// The server answered with an HTTP status outside 2xx; `bodyExcerpt` is the start of the
    /// body (at most 200 characters, lines joined) so a person can see what came back.
    case http(endpoint: Endpoint, status: Int, bodyExcerpt: String)
    /// The request never got an answer: refused, timed out, connection lost… The `URLError`
    /// is kept as URLSession reported it.
    case transport(endpoint: Endpoint, error: URLError)
    /// A 2xx answer whose body is not JSON (an HTML maintenance page, an empty body);
    /// `contentType` as sent (`nil` when absent).
    case notJSON(endpoint: Endpoint, contentType: String?, bodyExcerpt: String)
    /// A JSON body that does not have the expected shape; `path` is where, such as
    /// `data[3].aweme_id`, and `reason` what was wrong there.
    case decoding(endpoint: Endpoint, path: String, reason: String)
    /// `code` 0 but no `data` where the endpoint promises some.
    case missingData(endpoint: Endpoint)
    /// The request could not be built (a base URL and path that make no URL, a base URL with a
    /// query or a fragment, a page number past `Int.max`).
    case invalidRequest(endpoint: Endpoint, reason: String)
    /// The answer's body grew past ``APIClient/Configuration/maximumBodySize`` (`limit`, in
    /// bytes, counted after decompression); the exchange was cut off there.
    case bodyTooLarge(endpoint: Endpoint, limit: Int)
    /// The answer's framing is ambiguous or broken (RFC 9112 §6.3): a `Content-Length` that is
    /// not one canonical decimal (two different values, a sign, a list, too many digits), or a
    /// body whose length differs from it. `reason` says which, with the value as sent.
    case malformedResponse(endpoint: Endpoint, reason: String)
    /// A redirect the client does not follow: to a scheme other than http(s), or more than
    /// five 307/308 hops of a POST. `status` is the redirect's, `location` where it pointed.
    case redirectRefused(endpoint: Endpoint, status: Int, location: String)
    /// A page of ``APIClient/pages(_:from:limit:)`` holds only items (by id) that earlier
    /// pages already held: the server repeats itself, and following `has_more` would not end.
    /// `page` is the repeated page's number, `earlierPage` the first page that held them.
    case repeatedPage(endpoint: Endpoint, page: Int, earlierPage: Int)
    /// No token could be had for the call: the ``Authentication`` provider's first fetch or its
    /// refresh after a 401 threw (every call waiting for that fetch gets this error, once).
    /// `reason` is the provider's error as text (an ``APIError`` from it keeps its description).
    case authenticationFailed(endpoint: Endpoint, reason: String)
    /// ``APIClient/Configuration/adaptRequest`` threw; `reason` is its error as text. The
    /// request was not sent.
    case adaptationFailed(endpoint: Endpoint, reason: String)

    /// The endpoint the failed call went to.
    public var endpoint: Endpoint {
        switch self {
        case .server(let endpoint, _, _), .http(let endpoint, _, _), .transport(let endpoint, _),
             .notJSON(let endpoint, _, _), .decoding(let endpoint, _, _), .missingData(let endpoint),
             .invalidRequest(let endpoint, _), .bodyTooLarge(let endpoint, _), .malformedResponse(let endpoint, _),
             .redirectRefused(let endpoint, _, _), .repeatedPage(let endpoint, _, _),
             .authenticationFailed(let endpoint, _), .adaptationFailed(let endpoint, _):
            endpoint
        }
    }

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .server(let endpoint, let code, let message):
            "\(endpoint): the server answered code \(code): \(message.isEmpty ? "(no message)" : message)"
        case .http(let endpoint, let status, let excerpt):
            "\(endpoint): HTTP \(status)\(excerpt.isEmpty ? "" : ": \(excerpt)")"
        case .transport(let endpoint, let error):
            "\(endpoint): no answer (\(Self.describe(error)))"
        case .notJSON(let endpoint, let contentType, let excerpt):
            "\(endpoint): the answer is not JSON (Content-Type \(contentType ?? "absent"))\(excerpt.isEmpty ? ", empty body" : ": \(excerpt)")"
        case .decoding(let endpoint, let path, let reason):
            "\(endpoint): unexpected JSON at \(path.isEmpty ? "the top level" : path): \(reason)"
        case .missingData(let endpoint):
            "\(endpoint): code 0 but no data"
        case .invalidRequest(let endpoint, let reason):
            "\(endpoint): cannot build the request: \(reason)"
        case .bodyTooLarge(let endpoint, let limit):
            "\(endpoint): the answer is larger than the limit of \(limit) bytes"
        case .malformedResponse(let endpoint, let reason):
            "\(endpoint): malformed answer: \(reason)"
        case .redirectRefused(let endpoint, let status, let location):
            "\(endpoint): HTTP \(status) redirect to \(location) not followed"
        case .repeatedPage(let endpoint, let page, let earlierPage):
            "\(endpoint): page \(page) repeats page \(earlierPage) (the server pages without end)"
        case .authenticationFailed(let endpoint, let reason):
            "\(endpoint): no access token: \(reason)"
        case .adaptationFailed(let endpoint, let reason):
            "\(endpoint): the request adapter failed: \(reason)"
        }
    }

    private static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "connection refused"
        case .networkConnectionLost: "connection lost"
        case .notConnectedToInternet: "offline"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        default: "URLError \(error.code.rawValue): \(error.localizedDescription)"
        }
    }

    /// The first 200 characters of a body, lines joined, for error messages.
    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(600), as: UTF8.self)
        let joined = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return joined.count > 200 ? String(joined.prefix(200)) + "…" : joined
    }
}
