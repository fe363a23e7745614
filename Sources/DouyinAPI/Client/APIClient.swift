import DouyinLogging
import DouyinModels
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed client of the demo backend's REST API (DESIGN.md's endpoint table), and of any other
/// endpoint an app names, async/await over the package's HTTP transport.
///
/// ```swift
/// let client = APIClient(baseURL: URL(string: "http://127.0.0.1:8080/douyin/")!)
/// let user = try await client.send(.user(uid: "97795069001")).value
/// for try await page in client.pages(.awemePost(uid: user.uid)) { show(page.items) }
/// ```
///
/// Every call checks the answer (HTTP 2xx, a JSON body, the envelope's `code` 0) and throws an
/// ``APIError`` naming the endpoint otherwise; a cancelled task throws `CancellationError`.
/// GETs are retried by ``Configuration/retry`` and, when a ``FallbackStore`` is configured,
/// answered from it when the network fails (``APIResult/source`` says so). With
/// ``Configuration/authentication`` every request carries a token, renewed once for all the
/// calls a 401 answers together.
///
/// Safe to use from any task. By default requests go through the package's HTTP transport
/// (libcurl's multi interface on Linux, where a request that waits costs no CPU; URLSession on
/// Apple platforms), whose connections every client of the process shares;
/// ``init(baseURL:configuration:sessionConfiguration:clock:)`` uses a URLSession of the client's
/// own made from an app's configuration, and ``init(baseURL:configuration:session:clock:)`` the
/// app's own session (see there what still holds then).
public final class APIClient: Sendable {
    /// The API's base, such as `http://HOST:PORT/douyin/`; endpoint paths are appended to it.
    public let baseURL: URL
    /// How it behaves.
    public let configuration: Configuration
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double
    /// Where requests go out: the package's HTTP transport (libcurl on Linux, URLSession on
    /// Apple platforms, or a URLSession of the client's own), or a caller's URLSession.
    let carrier: Carrier

    /// What carries a client's requests.
    enum Carrier: Sendable {
        /// The transport seam: the body counted as it arrives, 307/308 re-sent with the body,
        /// the deadline enforced by the transport.
        case transport(any HTTPTransport)
        /// The caller's session, used as it is (its delegate is its own).
        case session(URLSession)
    }
    private let tokens: TokenRefresher?
    private let state = LockedBox(State())

    private struct State {
        var statistics = Statistics()
        /// `visitor/create` calls by udid: running (shared by every caller) or succeeded
        /// (remembered for the client's life); a failed one is removed.
        var visitors: [String: SingleFlight<Visitor>] = [:]
    }

    /// A client of the API at `baseURL` on a URLSession of its own; retry waits use `clock` (the
    /// continuous clock unless a test gives its own).
    public convenience init(baseURL: URL, configuration: Configuration = Configuration(), clock: any Clock<Duration> = ContinuousClock()) {
        self.init(baseURL: baseURL, configuration: configuration, clock: clock, random: { Double.random(in: 0..<1) })
    }

    /// A client whose backoff jitter comes from `random` (uniform in [0, 1)), for tests.
    package init(baseURL: URL, configuration: Configuration, clock: any Clock<Duration>, random: @escaping @Sendable () -> Double,
                 transport: Transport = .platformDefault) {
        self.baseURL = baseURL
        self.configuration = configuration
        self.clock = clock
        self.random = random
        tokens = configuration.authentication.map(TokenRefresher.init)
        switch transport {
        case .session(let session):
            carrier = .session(session)
        case .configuration(let original):
            carrier = .transport(URLSessionTransport(configuration: original))
        case .platformDefault:
            carrier = .transport(HTTPTransports.platformDefault)
        case .transport(let transport):
            carrier = .transport(transport)
        }
    }

    /// A snapshot of the counters.
    public var statistics: Statistics {
        var statistics = state.withLock { $0.statistics }
        if let token = tokens?.state {
            statistics.tokenFetches = token.fetches
            statistics.tokenRefreshes = token.refreshes
        }
        return statistics
    }

    /// Returns once `count` calls wait together for one token refresh (tests pile calls up
    /// behind a held refresh this way, instead of sleeping); at once without authentication.
    package func waitForCallsAwaitingRefresh(_ count: Int) async {
        await tokens?.waitForRefreshWaiters(count)
    }

    /// Sends `request` and returns its decoded `data` with where it came from and the HTTP
    /// answer's status and headers (``APIResult/response``).
    ///
    /// - Parameters:
    ///   - request: the call; any ``Endpoint``, known or not.
    ///   - uploadProgress: told, on the session's delegate queue, how much of a request body
    ///     (a multipart upload) went out; called again for each attempt. `nil` (the default)
    ///     reports nothing. On a caller's own session too: the request then goes out with a
    ///     delegate of its task alone (`data(for:delegate:)`), which forwards each report to
    ///     the session's own delegate as well.
    /// - Throws: ``APIError`` when the call fails and no fallback answers; `CancellationError`
    ///   when the task is cancelled (the request is cancelled with it, and no retry starts after).
    @discardableResult
    public func send<Response>(_ request: APIRequest<Response>, uploadProgress: (@Sendable (UploadProgress) -> Void)? = nil) async throws -> APIResult<Response> {
        do {
            return try await perform(request, uploadProgress: uploadProgress)
        } catch {
            state.withLock { $0.statistics.failures += 1 }
            throw error
        }
    }

    /// Sends `request` and returns just its decoded `data` (network or fallback).
    @discardableResult
    public func value<Response>(_ request: APIRequest<Response>) async throws -> Response {
        try await send(request).value
    }

    private func perform<Response>(_ request: APIRequest<Response>, uploadProgress: (@Sendable (UploadProgress) -> Void)?) async throws -> APIResult<Response> {
        let endpoint = request.endpoint
        let built = try RequestEncoding.urlRequest(for: request, baseURL: baseURL, timeout: configuration.timeout, boundary: "douyinkit-\(UUID().uuidString)")
        var attempt = 0
        // The token a 401 answered: the next attempt carries its replacement. A call is sent
        // again after a 401 once; a second 401 is its answer.
        var rejected: String?
        var reauthorized = false
        while true {
            try Task.checkCancellation()
            let (urlRequest, token) = try await prepare(built, endpoint: endpoint, rejected: rejected)
            state.withLock {
                $0.statistics.attempts += 1
                if attempt > 0 || reauthorized { $0.statistics.retries += 1 }
            }
            let sent = attempt + 1 + (reauthorized ? 1 : 0)
            let failure: APIError
            let retryFailure: RetryDecision.Failure
            do {
                let (data, response) = try await load(urlRequest, uploadProgress: uploadProgress)
                do {
                    return try Self.validate(request, data: data, response: response, attempts: sent)
                } catch {
                    if case .http(_, 401, _) = error, let token, !reauthorized {
                        (rejected, reauthorized) = (token, true)
                        log(.notice, "token rejected, sending again with a renewed one", endpoint)
                        continue
                    }
                    failure = error
                    if case .http(_, let status, _) = error {
                        retryFailure = .status(status, retryAfter: response.value(forHTTPHeaderField: "Retry-After"))
                    } else {
                        retryFailure = .other
                    }
                }
            } catch let error as ExchangeFailure {
                switch error {
                case .cancelled:
                    throw CancellationError()
                case .transport(let urlError):
                    // A cancelled task shows up as URLError.cancelled; report it as the cancellation it is.
                    if Task.isCancelled || urlError.code == .cancelled { throw CancellationError() }
                    failure = .transport(endpoint: endpoint, error: urlError)
                    retryFailure = .transport(urlError.code)
                case .tooLarge(let limit):
                    (failure, retryFailure) = (.bodyTooLarge(endpoint: endpoint, limit: limit), .other)
                case .framing(let reason):
                    (failure, retryFailure) = (.malformedResponse(endpoint: endpoint, reason: reason), .other)
                case .redirectRefused(let status, let location):
                    (failure, retryFailure) = (.redirectRefused(endpoint: endpoint, status: status, location: location), .other)
                }
            }
            let decision = RetryDecision.decide(policy: configuration.retry, method: endpoint.method, attempt: attempt,
                                                failure: retryFailure, random: random(), now: Date())
            switch decision {
            case .retry(let delay):
                log(.notice, "retrying", endpoint, ["attempt": String(sent + 1), "delaySeconds": String(delay.inSeconds), "error": "\(failure)"])
                // Sleeping on the caller's task: cancelling it ends the wait with CancellationError.
                try await clock.sleep(for: delay)
                attempt += 1
            case .fail:
                if let fallback = configuration.fallback, FallbackStore.covers(failure),
                   let answer = fallback.answer(request, attempts: sent, reason: failure) {
                    state.withLock { $0.statistics.fallbackAnswers += 1 }
                    log(.notice, "answered from the fallback", endpoint, ["error": "\(failure)"])
                    return answer
                }
                log(.error, "request failed", endpoint, ["attempts": String(sent), "error": "\(failure)"])
                throw failure
            }
        }
    }

    /// Sends an event to ``Configuration/log``, if one is set (its values built only then).
    private func log(_ level: LogEvent.Level, _ message: String, _ endpoint: Endpoint, _ values: @autoclosure () -> [String: String] = [:]) {
        guard let handler = configuration.log else { return }
        handler(LogEvent(level: level, subsystem: "DouyinAPI.APIClient", message: message,
                         metadata: values().merging(["endpoint": endpoint.path]) { $1 }))
    }

    /// One attempt's request: `built` with the token (the current one, or the replacement of
    /// `rejected`), the configured headers and the adapter's changes, and the token it carries.
    ///
    /// A refresh that starts while the adapter runs makes the request stale: it is built again
    /// with the new token, so no request leaves with a token whose refresh has started.
    private func prepare(_ built: URLRequest, endpoint: Endpoint, rejected: String?) async throws -> (URLRequest, String?) {
        var replacing = rejected
        while true {
            var request = built
            var token: String?
            if let tokens {
                do {
                    token = try await tokens.token(rejected: replacing)
                } catch let failure as TokenState.Failure {
                    throw APIError.authenticationFailed(endpoint: endpoint, reason: failure.reason)
                }
                if let token { tokens.authentication.authorize(&request, token) }
            }
            for (name, value) in configuration.headers where request.value(forHTTPHeaderField: name) == nil {
                request.setValue(value, forHTTPHeaderField: name)
            }
            if let adapt = configuration.adaptRequest {
                do {
                    request = try await adapt(request, endpoint)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    throw APIError.adaptationFailed(endpoint: endpoint, reason: "\(error)")
                }
            }
            guard let token, let tokens, !tokens.isCurrent(token) else { return (request, token) }
            replacing = token
        }
    }
}

extension APIClient {
    /// The visitor for `deviceID`: its `udid` is the md5 (lowercase hex) of the device id;
    /// `visitor/create` is called once per device id and its result kept for the client's life.
    ///
    /// Concurrent callers share one call. A caller whose task is cancelled stops waiting at once
    /// with `CancellationError`; the call goes on for the others (and, when it succeeds, is
    /// remembered even if every caller left). A failed call is forgotten before its callers
    /// hear of it, so the next caller tries again.
    ///
    /// - Throws: the call's ``APIError``, or `CancellationError` when the task is cancelled.
    public func visitor(deviceID: String) async throws -> Visitor {
        let udid = Self.udid(deviceID: deviceID)
        let (call, isNew) = state.withLock { state -> (SingleFlight<Visitor>, Bool) in
            if let existing = state.visitors[udid] { return (existing, false) }
            // Kept running without waiters: a visitor is remembered for the client's life.
            let call = SingleFlight<Visitor>(keepsRunningWithoutWaiters: true)
            state.visitors[udid] = call
            return (call, true)
        }
        if isNew {
            // Its own task, not the caller's: no caller's cancellation reaches the request.
            Task {
                let result: Result<Visitor, any Error>
                do {
                    result = .success(try await self.value(.visitorCreate(udid: udid)))
                } catch {
                    result = .failure(error)
                    self.state.withLock { state in
                        if state.visitors[udid] === call { state.visitors[udid] = nil }
                    }
                }
                call.finish(result)
            }
        }
        return try await call.value()
    }

    /// The `udid` of a device: the lowercase hex md5 of its id.
    public static func udid(deviceID: String) -> String {
        MD5Digest.hex(deviceID)
    }
}
