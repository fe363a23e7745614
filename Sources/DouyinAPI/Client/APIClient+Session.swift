import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIClient {
    /// A client on a URLSession of its own, made from a copy of `sessionConfiguration` (on
    /// Linux too, where the default is libcurl): its `protocolClasses`, proxies, cookies, TLS
    /// settings and extra headers apply. The URL cache is off on the copy (the API's answers
    /// are not cached); ``Configuration/timeout`` is each request's idle limit and the
    /// deadline of the whole attempt. Everything of the default client holds: the body limit
    /// counted as bytes arrive, the framing checks, 307/308 re-sends with the body, upload progress.
    public convenience init(baseURL: URL, configuration: Configuration = Configuration(), sessionConfiguration: URLSessionConfiguration,
                            clock: any Clock<Duration> = ContinuousClock()) {
        self.init(baseURL: baseURL, configuration: configuration, clock: clock, random: { Double.random(in: 0..<1) },
                  transport: .configuration(sessionConfiguration))
    }

    /// A client that sends through the caller's `session` (its delegate, metrics and
    /// protocol classes see every request). The session stays the caller's: the client never
    /// invalidates it.
    ///
    /// What holds on a caller's session: the deadline of ``Configuration/timeout``,
    /// cancellation, retries, the fallback, authentication, ``Configuration/adaptRequest``, the
    /// envelope checks, ``Configuration/maximumBodySize`` and the `Content-Length` check, and
    /// ``APIResult/response``. What differs: the body is checked once URLSession has buffered all
    /// of it (the limit still fails the call, but no longer caps the memory used on the way);
    /// redirects are the session's delegate's to decide (a POST redirected by 307/308 is not
    /// re-sent with its body by the client). Upload progress is reported: a request with a body
    /// and a progress closure goes out through `data(for:delegate:)` with a delegate of its own
    /// task, which passes `didSendBodyData` on to the session's delegate too (on its queue). That
    /// request starts and ends on Swift concurrency's pool (on Linux, the global dispatch
    /// queue): a pool kept busy delays it, within ``Configuration/timeout``.
    public convenience init(baseURL: URL, configuration: Configuration = Configuration(), session: URLSession,
                            clock: any Clock<Duration> = ContinuousClock()) {
        self.init(baseURL: baseURL, configuration: configuration, clock: clock, random: { Double.random(in: 0..<1) },
                  transport: .session(session))
    }

    /// Where a client's requests go out.
    package enum Transport {
        /// This platform's default transport (``HTTPTransports/platformDefault``).
        case platformDefault
        /// A transport given by a test.
        case transport(any HTTPTransport)
        /// A URLSession transport of the client's own over a copy of this configuration.
        case configuration(URLSessionConfiguration)
        /// The caller's session, used as it is.
        case session(URLSession)
    }

    /// Counters since the client was made.
    public struct Statistics: Sendable, Hashable {
        /// Attempts sent over the network, retries included.
        public var attempts = 0
        /// Retries among them (a call sent again with a new token after a 401 included).
        public var retries = 0
        /// Calls answered from the fallback store.
        public var fallbackAnswers = 0
        /// Calls that threw (cancellations included).
        public var failures = 0
        /// Access tokens fetched: first tokens and refreshes (0 without ``Configuration/authentication``).
        public var tokenFetches = 0
        /// Refreshes among them (one per burst of 401s).
        public var tokenRefreshes = 0
    }
}
