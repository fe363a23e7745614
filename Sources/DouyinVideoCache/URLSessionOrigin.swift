import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP origin over `URLSession`: one data task per ranged request.
///
/// Every request sends `Accept-Encoding: identity`: FoundationNetworking asks for gzip by
/// default, and an origin that compresses then ignores Range and answers 200 with the whole body.
public final class URLSessionOrigin: VideoOrigin {
    private let session: URLSession
    private let delegate = SessionDelegate()

    /// An origin with its own session; `configuration` sets timeouts and connections per host.
    public init(configuration: URLSessionConfiguration = .default) {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "DouyinVideoCache.URLSessionOrigin"
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // The session holds its delegate until invalidated.
        session.invalidateAndCancel()
    }

    /// Sends `Range: bytes=a-b` (and `If-Range` when given) and returns at the response head.
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.setValue("bytes=\(request.range.lowerBound)-\(request.range.upperBound - 1)", forHTTPHeaderField: "Range")
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let validator = request.ifRange {
            urlRequest.setValue(validator, forHTTPHeaderField: "If-Range")
        }
        let task = session.dataTask(with: urlRequest)
        let (body, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        bodyContinuation.onTermination = { termination in
            // Only a consumer that stopped early cancels; a finished body needs nothing (and
            // cancel() from inside the session's own completion callback would block on it).
            if case .cancelled = termination { task.cancel() }
        }
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.register(task, head: continuation, body: bodyContinuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        var headers: [String: String] = [:]
        for (name, value) in head.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return OriginResponse(status: head.statusCode, headers: headers, body: body)
    }
}

/// Routes a session's callbacks to the request that owns each task.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `transfers` is only touched under `lock`.
    private struct Transfer {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>.Continuation
    }

    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    func register(_ task: URLSessionTask, head: CheckedContinuation<HTTPURLResponse, any Error>, body: AsyncThrowingStream<Data, any Error>.Continuation) {
        lock.withLock { transfers[task.taskIdentifier] = Transfer(head: head, body: body) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let head = lock.withLock { () -> CheckedContinuation<HTTPURLResponse, any Error>? in
            defer { transfers[dataTask.taskIdentifier]?.head = nil }
            return transfers[dataTask.taskIdentifier]?.head
        }
        if let http = response as? HTTPURLResponse {
            head?.resume(returning: http)
            completionHandler(.allow)
        } else {
            head?.resume(throwing: VideoCacheError.invalidResponse("not an HTTP response"))
            completionHandler(.cancel)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Callbacks already queued still arrive after cancel(); yielding to a finished stream is a no-op.
        let body = lock.withLock { transfers[dataTask.taskIdentifier]?.body }
        body?.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        let failure = error.map(Self.describe)
        if let head = transfer.head {
            head.resume(throwing: failure ?? VideoCacheError.invalidResponse("no response"))
        }
        if let failure {
            transfer.body.finish(throwing: failure)
        } else {
            transfer.body.finish()
        }
    }

    private static func describe(_ error: any Error) -> VideoCacheError {
        if let urlError = error as? URLError, urlError.code == .cancelled { return .cancelled }
        return .network(error.localizedDescription)
    }
}
