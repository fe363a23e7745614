import DouyinModels
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed client of the demo backend's REST API (DESIGN.md's endpoint table), async/await over
/// URLSession.
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
/// answered from it when the network fails (``APIResult/source`` says so).
///
/// Safe to use from any task; one client keeps one URLSession, torn down when it is released.
public final class APIClient: Sendable {
    /// The API's base, such as `http://HOST:PORT/douyin/`; endpoint paths are appended to it.
    public let baseURL: URL
    /// How it behaves.
    public let configuration: Configuration
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double
    private let session: URLSession
    private let delegate = ExchangeDelegate()
    private let state = LockedBox(State())

    private struct State {
        var statistics = Statistics()
        /// `visitor/create` calls by udid: running (shared by every caller) or succeeded
        /// (remembered for the client's life); a failed one is removed.
        var visitors: [String: SingleFlight<Visitor>] = [:]
    }

    /// A client of the API at `baseURL`; retry waits use `clock` (the continuous clock unless a
    /// test gives its own).
    public convenience init(baseURL: URL, configuration: Configuration = Configuration(), clock: any Clock<Duration> = ContinuousClock()) {
        self.init(baseURL: baseURL, configuration: configuration, clock: clock, random: { Double.random(in: 0..<1) })
    }

    /// A client whose backoff jitter comes from `random` (uniform in [0, 1)), for tests.
    package init(baseURL: URL, configuration: Configuration, clock: any Clock<Duration>, random: @escaping @Sendable () -> Double) {
        self.baseURL = baseURL
        self.configuration = configuration
        self.clock = clock
        self.random = random
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        let seconds = Self.seconds(configuration.timeout)
        // FoundationNetworking's own timer restarts with every byte (a trickle never ends it):
        // it stays as an idle limit, and ``Exchange`` holds the deadline of the whole exchange.
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.httpAdditionalHeaders = configuration.headers
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "DouyinAPI.APIClient.delegate"
        session = URLSessions.make(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        URLSessions.tearDown(session)
    }

    /// Counters since the client was made.
    public struct Statistics: Sendable, Hashable {
        /// Attempts sent over the network, retries included.
        public var attempts = 0
        /// Retries among them.
        public var retries = 0
        /// Calls answered from the fallback store.
        public var fallbackAnswers = 0
        /// Calls that threw (cancellations included).
        public var failures = 0
    }

    /// A snapshot of the counters.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Sends `request` and returns its decoded `data` with where it came from.
    ///
    /// - Throws: ``APIError`` when the call fails and no fallback answers; `CancellationError`
    ///   when the task is cancelled (the request is cancelled with it, and no retry starts after).
    public func send<Response>(_ request: APIRequest<Response>) async throws -> APIResult<Response> {
        do {
            return try await perform(request)
        } catch {
            state.withLock { $0.statistics.failures += 1 }
            throw error
        }
    }

    /// Sends `request` and returns just its decoded `data` (network or fallback).
    public func value<Response>(_ request: APIRequest<Response>) async throws -> Response {
        try await send(request).value
    }

    private func perform<Response>(_ request: APIRequest<Response>) async throws -> APIResult<Response> {
        let urlRequest = try RequestEncoding.urlRequest(for: request, baseURL: baseURL, timeout: configuration.timeout, boundary: "douyinkit-\(UUID().uuidString)")
        var attempt = 0
        while true {
            try Task.checkCancellation()
            state.withLock {
                $0.statistics.attempts += 1
                if attempt > 0 { $0.statistics.retries += 1 }
            }
            let failure: APIError
            let retryFailure: RetryDecision.Failure
            do {
                let (data, response) = try await load(urlRequest)
                do {
                    return try Self.validate(request, data: data, response: response, attempts: attempt + 1)
                } catch {
                    failure = error
                    if case .http(_, let status, _) = error {
                        retryFailure = .status(status, retryAfter: response.value(forHTTPHeaderField: "Retry-After"))
                    } else {
                        retryFailure = .other
                    }
                }
            } catch let error as ExchangeFailure {
                let endpoint = request.endpoint
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
            let decision = RetryDecision.decide(policy: configuration.retry, method: request.endpoint.method, attempt: attempt,
                                                failure: retryFailure, random: random(), now: Date())
            switch decision {
            case .retry(let delay):
                // Sleeping on the caller's task: cancelling it ends the wait with CancellationError.
                try await clock.sleep(for: delay)
                attempt += 1
            case .fail:
                if let fallback = configuration.fallback, FallbackStore.covers(failure),
                   let answer = fallback.answer(request, attempts: attempt + 1, reason: failure) {
                    state.withLock { $0.statistics.fallbackAnswers += 1 }
                    return answer
                }
                throw failure
            }
        }
    }

    /// Checks status, body and envelope, and decodes `data`.
    static func validate<Response>(_ request: APIRequest<Response>, data: Data, response: HTTPURLResponse, attempts: Int) throws(APIError) -> APIResult<Response> {
        let endpoint = request.endpoint
        guard (200..<300).contains(response.statusCode) else {
            throw .http(endpoint: endpoint, status: response.statusCode, bodyExcerpt: APIError.excerpt(data))
        }
        let contentType = response.value(forHTTPHeaderField: "Content-Type")
        if let contentType, contentType.lowercased().hasPrefix("text/html") {
            throw .notJSON(endpoint: endpoint, contentType: contentType, bodyExcerpt: APIError.excerpt(data))
        }
        let envelope: Envelope<Response>
        do {
            envelope = try JSONDecoder().decode(Envelope<Response>.self, from: data)
        } catch let error as DecodingError {
            // A failure the server reported wins over a payload of the wrong shape.
            if let status = try? JSONDecoder().decode(EnvelopeStatus.self, from: data), status.code != 0 {
                throw .server(endpoint: endpoint, code: status.code, message: status.message ?? "")
            }
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                throw .notJSON(endpoint: endpoint, contentType: contentType, bodyExcerpt: APIError.excerpt(data))
            }
            throw .decoding(endpoint: endpoint, path: error.jsonPath, reason: Self.reason(error))
        } catch {
            throw .decoding(endpoint: endpoint, path: "", reason: "\(error)")
        }
        guard envelope.code == 0 else {
            throw .server(endpoint: endpoint, code: envelope.code, message: envelope.message)
        }
        guard let value = envelope.data ?? request.valueForNull?() else { throw .missingData(endpoint: endpoint) }
        return APIResult(value: value, source: .network, hasMore: envelope.hasMore, reportedTotalCount: envelope.totalCount, attempts: attempts, fallbackReason: nil)
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.debugDescription
        case .keyNotFound(let key, _):
            "required key \"\(key.stringValue)\" is missing"
        @unknown default:
            "\(error)"
        }
    }

    /// The most 307/308 hops a request with a body is sent again for.
    static let maximumBodyRedirects = 5

    /// One attempt: the request and, for a request with a body, the 307/308 hops it is sent
    /// again for (same method, headers and body; URLSession would drop the body). The whole
    /// attempt, hops included, has ``Configuration/timeout`` as its deadline.
    ///
    /// - Throws: ``ExchangeFailure``; cancelling the calling task cancels the URLSession task.
    private func load(_ first: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let deadline = ContinuousClock.now + configuration.timeout
        var request = first
        var hops = 0
        while true {
            let exchange = Exchange(limit: configuration.maximumBodySize, redirectsReturned: request.httpBody != nil)
            let task = session.dataTask(with: request)
            delegate.register(exchange, for: task)
            switch try await exchange.run(task, until: deadline) {
            case .answer(let data, let response):
                return (data, response)
            case .redirect(let status, let url):
                hops += 1
                guard hops <= Self.maximumBodyRedirects else {
                    throw ExchangeFailure.redirectRefused(status: status, location: url.absoluteString)
                }
                request.url = url
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
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
