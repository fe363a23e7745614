import DouyinLogging
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIClient {
    /// How an ``APIClient`` behaves; every field has a default, so `Configuration()` is the
    /// client the demo app had plus retries, a timeout and no fallback.
    public struct Configuration: Sendable {
        /// The deadline of one attempt, from sending the request to the last byte of the answer
        /// (connecting, interim `1xx` answers and a body that trickles all count); past it the
        /// attempt ends as a timeout (`URLError.timedOut`). 15 s by default. Applies to each
        /// attempt, not to all retries together.
        public var timeout: Duration = .seconds(15)
        /// The most bytes an answer's body may have, counted as they arrive and after any
        /// `Content-Encoding` is undone (a gzip bomb stops here too); a larger one ends the
        /// exchange with ``APIError/bodyTooLarge(endpoint:limit:)``. 16 MiB (16,777,216 bytes)
        /// by default; the API's pages are a few hundred KB.
        public var maximumBodySize: Int = 16 << 20
        /// When a failed GET is tried again.
        public var retry = RetryPolicy()
        /// Bundled answers for a GET the network cannot give; `nil` (the default) means none.
        public var fallback: FallbackStore?
        /// The most pages ``APIClient/pages(_:from:limit:)`` fetches when no limit is given; 50 by default.
        public var pageLimit: Int = 50
        /// Extra headers sent with every request (none by default); a header the request
        /// already has (set by ``adaptRequest`` or ``authentication``) is not replaced.
        public var headers: [String: String] = [:]
        /// The access token every request carries and how it is renewed on HTTP 401 (one
        /// refresh however many calls are rejected together); `nil` (the default) sends none.
        public var authentication: Authentication?
        /// Changes each attempt's `URLRequest` just before it is sent, after the token is set
        /// (headers, signing, a body of another format): it gets the request and the endpoint
        /// and returns the request to send. Runs again for every retry, so a signature can
        /// cover a fresh timestamp. `nil` (the default) sends requests as built. An error it
        /// throws ends the call with ``APIError/adaptationFailed(endpoint:reason:)``.
        public var adaptRequest: (@Sendable (_ request: URLRequest, _ endpoint: Endpoint) async throws -> URLRequest)?
        /// Where the client's events go: each retry (with the attempt, the wait and why), the
        /// 401 that renews the token, a request that failed for good, an answer taken from the
        /// fallback. `nil` by default: nothing is logged.
        public var log: LogHandler?

        /// The defaults.
        public init() {}
    }

    /// When a failed GET is tried again. POST and DELETE are never retried: the server may have
    /// acted on them before the failure.
    ///
    /// A GET is retried after a connection error or timeout, or an HTTP 429, 502, 503 or 504.
    /// The wait before retry *n* (from 0) is drawn uniformly from 0 up to
    /// `min(maximumDelay, baseDelay × 2ⁿ)` ("full jitter", so clients that failed together do
    /// not come back together), unless the answer had a `Retry-After`: then exactly that long.
    public struct RetryPolicy: Sendable, Hashable {
        /// Retries after the first attempt; 2 by default (3 attempts in all); 0 turns retrying off.
        public var maximumRetries: Int = 2
        /// The ceiling of the first backoff; 500 ms by default. Doubles each retry.
        public var baseDelay: Duration = .milliseconds(500)
        /// The most a backoff ceiling grows to; 8 s by default.
        public var maximumDelay: Duration = .seconds(8)
        /// The longest `Retry-After` honoured; 30 s by default. A server asking for longer is
        /// not retried at all (the failure is reported at once).
        public var maximumRetryAfter: Duration = .seconds(30)

        /// The defaults.
        public init() {}
    }
}
