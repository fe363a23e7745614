import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one HTTP exchange ended.
package enum ExchangeOutcome: Sendable {
    /// A final answer: its body (at most the limit) and response.
    case answer(Data, HTTPURLResponse)
}

/// Why one exchange failed; the client turns it into an ``APIError`` naming the endpoint.
package enum ExchangeFailure: Error, Sendable {
    case transport(URLError)
    case tooLarge(limit: Int)
    case framing(String)
    case redirectRefused(status: Int, location: String)
    case cancelled
}

/// One request in flight: collects the body up to its limit, checks the framing, and ends once,
/// whichever comes first of the answer, the deadline, a refusal or the caller's cancellation.
///
/// - Important: Called from the session's delegate queue, the deadline task and the caller's
///   cancellation handler at once; all state is behind one lock, and the continuation is
///   resumed after the lock is released.
package final class Exchange: Sendable {
    /// The most body bytes accepted (after decoding).
    let limit: Int
    /// Told how much of the body went out; `nil` when nobody asked.
    let uploadProgress: (@Sendable (UploadProgress) -> Void)?
    private let state = LockedBox(State())

    /// What carries the request: a data task the exchange starts (made, resumed and cancelled
    /// off the caller's thread: ``SessionTaskControl``), or a Swift task already awaiting
    /// URLSession's async API (a caller's session asked for upload progress).
    package enum Transfer: Sendable {
        case dataTask(SessionTaskControl)
        case running(Task<Void, Never>)

        func start() {
            if case .dataTask(let control) = self { control.start() }
        }

        func cancel() {
            switch self {
            case .dataTask(let control): control.cancel()
            case .running(let task): task.cancel()
            }
        }

        /// Returns once the transfer can no longer create anything on its session: at once for
        /// a data task (the exchange cancelled it when it ended, and a control cancelled before
        /// its start began makes nothing; one already begun has passed FoundationNetworking's
        /// check of the session); for a Swift task, when it has ended. That task makes its
        /// URLSession task only when it first runs, and a caller who invalidated its session
        /// as soon as the exchange failed would otherwise have the process stopped by
        /// FoundationNetworking ("Session invalidated" is a fatal error).
        func ended() async {
            if case .running(let task) = self { await task.value }
        }
    }

    private struct State: @unchecked Sendable {
        // @unchecked: HTTPURLResponse is only stored and read under the box's lock.
        var body = Data()
        var response: HTTPURLResponse?
        var declaredLength: Int?
        var task: Transfer?
        var continuation: CheckedContinuation<ExchangeOutcome, any Error>?
        var early: Result<ExchangeOutcome, ExchangeFailure>?
        var finished = false
    }

    package init(limit: Int, uploadProgress: (@Sendable (UploadProgress) -> Void)? = nil) {
        self.limit = limit
        self.uploadProgress = uploadProgress
    }

    /// Runs `task` (started here if it is a data task) to its end or to `deadline`, as above,
    /// and returns only once `task` is done with its session (``Transfer/ended()``).
    package func run(_ task: Transfer, until deadline: ContinuousClock.Instant) async throws -> ExchangeOutcome {
        do {
            let outcome = try await wait(for: task, until: deadline)
            await task.ended()
            return outcome
        } catch {
            await task.ended()
            throw error
        }
    }

    private func wait(for task: Transfer, until deadline: ContinuousClock.Instant) async throws -> ExchangeOutcome {
        // The deadline fires on a dispatch queue of its own, not in a Task: when the cooperative
        // pool's threads are all busy (the whole test suite under Thread Sanitizer), a
        // `Task.sleep` timer ran only after the origin gave up 60 s later, and the exchange
        // ended with the lost connection instead of the timeout.
        let timer = DispatchWorkItem { [self] in finish(.failure(.transport(URLError(.timedOut)))) }
        let remaining = max(ContinuousClock.now.duration(to: deadline), .zero)
        Self.deadlines.asyncAfter(deadline: .now() + remaining.inSeconds, execute: timer)
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ExchangeOutcome, any Error>) in
                let early = state.withLock { state -> Result<ExchangeOutcome, ExchangeFailure>? in
                    state.task = task
                    if let early = state.early { return early }
                    state.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(with: early)
                    task.cancel()
                } else {
                    task.start()
                }
            }
        } onCancel: {
            finish(.failure(.cancelled))
        }
    }

    /// Ends the exchange with `result` unless it already ended; cancels the task.
    func finish(_ result: Result<ExchangeOutcome, ExchangeFailure>) {
        let (continuation, task) = state.withLock { state -> (CheckedContinuation<ExchangeOutcome, any Error>?, Transfer?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            if state.continuation == nil { state.early = result }
            defer { state.continuation = nil }
            return (state.continuation, state.task)
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
        task?.cancel()
    }

    /// Where deadlines fire: a serial queue of its own gets a thread even while the global
    /// queue's and the task pool's are busy.
    private static let deadlines = DispatchQueue(label: "DouyinAPI.Exchange.deadlines")

    // MARK: Events from the delegate

    /// The head of the answer arrived: refuse it now if its framing is broken or it announces
    /// more than the limit. Returns whether to go on receiving.
    func received(_ response: HTTPURLResponse) -> Bool {
        let declared = ResponseFraming.declaredLength(contentLength: response.value(forHTTPHeaderField: "Content-Length"),
                                                      transferEncoding: response.value(forHTTPHeaderField: "Transfer-Encoding"))
        switch declared {
        case .failure(let refusal):
            finish(.failure(.framing(refusal.reason)))
            return false
        case .success(let length?) where length > limit:
            finish(.failure(.tooLarge(limit: limit)))
            return false
        case .success(let length):
            state.withLock {
                $0.response = response
                $0.declaredLength = length
            }
            return true
        }
    }

    /// `sent` of `expected` body bytes went out (`expected` ≤ 0 when unknown).
    func sent(_ sent: Int64, of expected: Int64) {
        guard let uploadProgress, !state.withLock({ $0.finished }) else { return }
        uploadProgress(UploadProgress(bytesSent: sent, totalBytes: max(0, expected)))
    }

    /// Body bytes arrived (decoded already): kept while the total stays within the limit.
    func received(_ data: Data) {
        let over = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if state.body.count + data.count > limit { return true }
            state.body.append(data)
            return false
        }
        if over { finish(.failure(.tooLarge(limit: limit))) }
    }

    /// The whole answer of a task with a completion handler (on a caller's session, whose
    /// delegate is not the client's): the same checks, once the body is all there.
    func delivered(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        if error == nil, let http = response as? HTTPURLResponse {
            guard received(http) else { return }
            if let data { received(data) }
        }
        completed(error)
    }

    /// The task ended, with `error` or with the whole answer.
    func completed(_ error: (any Error)?) {
        let (body, response, declared) = state.withLock { ($0.body, $0.response, $0.declaredLength) }
        if let error {
            let urlError = (error as? URLError) ?? URLError(.unknown)
            finish(.failure(urlError.code == .cancelled ? .cancelled : .transport(urlError)))
            return
        }
        guard let response else {
            finish(.failure(.transport(URLError(.badServerResponse))))
            return
        }
        guard ResponseFraming.bodyMatches(declared: declared, received: body.count, contentEncoding: response.value(forHTTPHeaderField: "Content-Encoding")) else {
            finish(.failure(.framing("the body has \(body.count) bytes, Content-Length said \(declared ?? 0)")))
            return
        }
        finish(.success(.answer(body, response)))
    }

}
