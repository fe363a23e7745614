import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP transport over `URLSession` (the Apple platforms' default; on Linux it is still
/// here, for a caller who picks it and for the contract tests).
///
/// One session, one delegate routing every task's events to its exchange. What URLSession
/// lacks is made up here, so clients above the seam see the same behaviour as on libcurl:
/// redirects are handed back (the seam follows them); the deadline is a timer of its own
/// (URLSession's request timeout restarts with every byte, so it serves as the idle limit);
/// it cannot pause, so a reader more than ``HTTPRequest/bufferLimit`` behind ends the body with
/// ``HTTPTransportError/consumerFellBehind``; no call into FoundationNetworking (making a
/// task, resuming it, cancelling it) is made on the caller's thread (see
/// ``SessionTaskControl``).
package final class URLSessionTransport: HTTPTransport {
    /// The process's shared instance, over an ephemeral configuration.
    package static let shared = URLSessionTransport()

    private let session: URLSession
    private let router = TaskRouter()

    /// A transport over its own session made from a copy of `configuration` (its proxies,
    /// TLS settings, protocol classes and headers apply; caching is switched off).
    package init(configuration: URLSessionConfiguration = .ephemeral) {
        session = URLSessions.make(configuration: configuration, delegate: router,
                                   delegateQueue: SerialDelegateQueue(label: "DouyinSupport.URLSessionTransport"))
    }

    deinit {
        URLSessions.tearDown(session)
    }

    package func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard HTTPRequest.isFetchable(request.url) else { throw URLError(.unsupportedURL) }
        if let deadline = request.deadline, deadline <= .now { throw URLError(.timedOut) }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = request.idleTimeout.inSeconds
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if !request.decodesContent, !request.headers.contains("Accept-Encoding") {
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        if case .data(let data)? = request.body { urlRequest.httpBody = data }
        let (session, router, made, body) = (session, router, urlRequest, request.body)
        let exchange = SessionExchange(request: request) {
            if case .file(let url)? = body { return session.uploadTask(with: made, fromFile: url) }
            return session.dataTask(with: made)
        }
        return try await exchange.start { task in router.register(exchange, for: task) }
    }
}

/// One task's exchange: its head continuation, its body buffer, its deadline.
final class SessionExchange: @unchecked Sendable {
    // @unchecked Sendable: the task is only touched through `control`; the rest is immutable or
    // behind `state`'s lock.
    let control: SessionTaskControl
    let request: HTTPRequest
    let buffer: HTTPBodyBuffer
    private let startedAt = ContinuousClock.now

    private struct State {
        var head: CheckedContinuation<HTTPResponse, any Error>?
        var headDelivered = false
        var ended = false
        var timer: DispatchWorkItem?
    }

    private let state = LockedBox(State())

    /// An exchange of `request` over the task `make` makes.
    init(request: HTTPRequest, make: @escaping @Sendable () -> URLSessionTask) {
        let control = SessionTaskControl(make: make)
        self.control = control
        self.request = request
        buffer = HTTPBodyBuffer(limit: request.bufferLimit, resume: {}, cancelTransfer: { control.cancel() })
    }

    /// Starts the task (`register` sees it before it runs) and waits for the answer's head.
    func start(register: @escaping @Sendable (URLSessionTask) -> Void) async throws -> HTTPResponse {
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ended = state.withLock { state -> Bool in
                    guard !state.ended else { return true }
                    state.head = continuation
                    if let deadline = request.deadline {
                        let timer = DispatchWorkItem { [weak self] in self?.end(URLError(.timedOut)) }
                        state.timer = timer
                        let remaining = max(ContinuousClock.now.duration(to: deadline), .zero)
                        Self.deadlines.asyncAfter(deadline: .now() + remaining.inSeconds, execute: timer)
                    }
                    return false
                }
                if ended { continuation.resume(throwing: CancellationError()) } else { control.start(made: register) }
            }
        } onCancel: {
            end(CancellationError())
        }
        state.withLock { _ in }  // the edge Thread Sanitizer needs: see received(_:)
        return response
    }

    /// Where deadlines fire: a serial queue of its own gets a thread even while the global
    /// queue's and the task pool's are busy.
    private static let deadlines = DispatchQueue(label: "DouyinSupport.URLSessionTransport.deadlines")

    /// Ends the exchange now with `error` (cancel, deadline, refusal); the task is cancelled.
    func end(_ error: any Error) {
        let head = state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
            state.ended = true
            state.timer?.cancel()
            defer { state.head = nil }
            return state.head
        }
        head?.resume(throwing: error)
        buffer.finish(throwing: error)
        control.cancel()
    }

    func received(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            if let name = name as? String { headers.add(name, "\(value)") }
        }
        let head = HTTPResponseHead(status: response.statusCode, headers: headers, url: response.url ?? request.url,
                                    timeToHead: startedAt.duration(to: .now))
        // Made under the lock the caller takes once resumed (``start()``), so Thread Sanitizer
        // sees the hand-off, which it does not see through the continuation.
        let handOff = state.withLock { state -> (CheckedContinuation<HTTPResponse, any Error>, HTTPResponse)? in
            state.headDelivered = true
            defer { state.head = nil }
            return state.head.map { ($0, HTTPResponse(head: head, body: HTTPBody(buffer))) }
        }
        if let (waiter, response) = handOff { waiter.resume(returning: response) }
    }

    func received(_ data: Data) {
        let (_, overLimit) = buffer.append(data)
        if overLimit {
            // URLSession cannot pause: past the limit the transfer stops, the bytes held stand.
            buffer.finish(throwing: HTTPTransportError.consumerFellBehind)
            control.cancel()
        }
    }

    func completed(_ error: (any Error)?) {
        state.withLock { $0.timer?.cancel() }
        guard let error else {
            finishCleanly()
            return
        }
        let urlError = URLError(sessionError: error)
        end(urlError.code == .cancelled ? CancellationError() : urlError)
    }

    /// The task ended without error: the body ends (a task that ended before any head is a
    /// bad answer).
    private func finishCleanly() {
        let head = state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
            state.ended = true
            defer { state.head = nil }
            return state.head
        }
        head?.resume(throwing: URLError(.badServerResponse))
        buffer.finish(throwing: nil)
    }
}

/// The session's delegate: routes each task's events to its exchange.
final class TaskRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: NSObject is not Sendable; the only state is the LockedBox below.
    private let exchanges = LockedBox([Int: SessionExchange]())

    func register(_ exchange: SessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> SessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let exchange = exchange(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            dataTask.cancelWithoutWaiting()
            return
        }
        exchange.received(http)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // Not followed here: the 3xx is the answer, and the seam follows it by its own rules.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let exchange = exchange(task) else { return }
        exchange.request.uploadProgress?(totalBytesSent, max(0, totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }?.completed(error)
    }
}

extension URLSessionTask {
    /// Cancels the task from another thread and returns at once.
    ///
    /// FoundationNetworking's `cancel()` waits (`sync`) for the session's work queue, where
    /// libcurl reads the socket: against a fast loopback sender the wait took 0.07–0.4 s and
    /// reading went on for up to 1.2 s (9 s under Thread Sanitizer), every chunk queued on the
    /// delegate queue meanwhile. A serial queue of its own gets a thread at once, where the
    /// global queue waits for the pool.
    package func cancelWithoutWaiting() {
        let task = UncheckedTask(task: self)
        DispatchQueue(label: "DouyinSupport.URLSessionTransport.cancel").async { task.task.cancel() }
    }
}

private struct UncheckedTask: @unchecked Sendable {
    // @unchecked: a task is safe to cancel from any thread; nothing else is done with it.
    let task: URLSessionTask
}

extension URLError {
    /// A session's error as the `URLError` it is (FoundationNetworking hands over an `NSError`
    /// in `NSURLErrorDomain`); anything else as `.unknown`.
    package init(sessionError error: any Error) {
        if let error = error as? URLError {
            self = error
            return
        }
        let bridged = error as NSError
        // Failable on Linux (an unknown code is nil), not on Apple platforms: typed as an
        // optional so the same line compiles on both.
        let code: URLError.Code? = bridged.domain == NSURLErrorDomain ? URLError.Code(rawValue: bridged.code) : nil
        self.init(code ?? .unknown)
    }
}
