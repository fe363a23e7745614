import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP origin over `URLSession`: one data task per ranged request.
///
/// Every request sends `Accept-Encoding: identity`: FoundationNetworking asks for gzip by
/// default, and an origin that compresses then ignores Range and answers 200 with the whole body.
public final class URLSessionOrigin: VideoOrigin {
    /// How the origin buffers; the session's own settings come as a `URLSessionConfiguration`.
    public struct Configuration: Sendable {
        /// Bytes: the most body bytes buffered for a consumer that has fallen behind. Default
        /// 8,388,608 (8 MB); at least 1. FoundationNetworking has no backpressure (and
        /// `suspend()`/`resume()` on a running data task re-delivers bytes), so past this the
        /// transfer is cancelled and its body ends with ``OriginStoppedEarly`` after the
        /// buffered bytes; the cache then asks again from where it got to.
        public var maxBufferedBytes: Int = 8 << 20

        /// The default configuration.
        public init() {}
    }

    /// What this origin was made with (`maxBufferedBytes` raised to at least 1).
    public let configuration: Configuration
    private let session: URLSession
    private let delegate = SessionDelegate()

    /// Ends a body whose consumer fell more than ``Configuration/maxBufferedBytes`` behind the
    /// network: the ``VideoOrigin`` contract's "stopped early, ask again".
    public typealias ConsumerFellBehind = OriginStoppedEarly

    /// An origin with its own session; `session` sets timeouts and connections per host
    /// (default `.default`). Its URL cache is switched off: the video cache keeps the bytes,
    /// and on Linux a task cancelled while FoundationNetworking reads its URL cache traps the
    /// process.
    public init(session: URLSessionConfiguration = .default, configuration: Configuration = Configuration()) {
        var configuration = configuration
        configuration.maxBufferedBytes = max(1, configuration.maxBufferedBytes)
        self.configuration = configuration
        // A serial delegate queue of its own (URLSessions' default): over the global pool, the
        // callbacks waited behind busy processors while libcurl kept reading.
        self.session = URLSessions.make(configuration: session, delegate: delegate,
                                        delegateQueue: SerialDelegateQueue(label: "DouyinVideoCache.URLSessionOrigin"))
    }

    deinit {
        // The session holds its delegate until invalidated.
        URLSessions.tearDown(session)
    }

    /// Whether `url` may be fetched from an origin: `http` or `https`, nothing else. URLs come
    /// from data (feeds, API answers), and FoundationNetworking speaks FTP and reads files.
    static func isFetchable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Sends `Range: bytes=a-b` (and `If-Range` when given) and returns at the response head.
    ///
    /// - Throws: ``VideoCacheError/unsupportedScheme(url:)`` before any connection for a URL
    ///   that is not `http`/`https`; a redirect to one is not followed (its 3xx is the answer).
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        guard Self.isFetchable(request.url) else { throw VideoCacheError.unsupportedScheme(url: request.url.absoluteString) }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.setValue("bytes=\(request.range.lowerBound)-\(request.range.upperBound - 1)", forHTTPHeaderField: "Range")
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let validator = request.ifRange {
            urlRequest.setValue(validator, forHTTPHeaderField: "If-Range")
        }
        let task = session.dataTask(with: urlRequest)
        let channel = ChunkChannel(limit: configuration.maxBufferedBytes) { task.cancel() }
        // Held by the body stream alone: a stream dropped before the body ended (the consumer
        // stopped reading) cancels the task rather than leaving it filling memory. Not after
        // the end: cancel() from inside the session's completion callback blocks.
        let transfer = Lease((task: task, channel: channel)) { transfer in
            if !transfer.channel.isFinished { transfer.task.cancel() }
        }
        let body = AsyncThrowingStream<Data, any Error> {
            try await withTaskCancellationHandler {
                try await transfer.resource.channel.next()
            } onCancel: {
                transfer.resource.task.cancel()
            }
        }
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.register(task, head: continuation, body: channel)
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
    // @unchecked Sendable: its one stored property is a Sendable LockedBox (NSObject subclasses
    // cannot be checked).
    private struct Transfer {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        let body: ChunkChannel
    }

    private let transfers = LockedBox<[Int: Transfer]>([:])

    func register(_ task: URLSessionTask, head: CheckedContinuation<HTTPURLResponse, any Error>, body: ChunkChannel) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(head: head, body: body) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let head = transfers.withLock { transfers -> CheckedContinuation<HTTPURLResponse, any Error>? in
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

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // A redirect may lead only to http(s); otherwise the 3xx itself is the answer (and fails
        // as an origin status), so no connection is made to the scheme it names.
        completionHandler(request.url.map(URLSessionOrigin.isFetchable) == true ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Callbacks already queued still arrive after cancel(); a finished channel drops them.
        let body = transfers.withLock { $0[dataTask.taskIdentifier]?.body }
        body?.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let failure = error.map(Self.describe)
        if let head = transfer.head {
            head.resume(throwing: failure ?? VideoCacheError.invalidResponse("no response"))
        }
        transfer.body.finish(throwing: failure)
    }

    private static func describe(_ error: any Error) -> VideoCacheError {
        let urlError = (error as? URLError) ?? URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error as NSError,
                                                                              NSLocalizedDescriptionKey: error.localizedDescription])
        if urlError.code == .cancelled { return .cancelled }
        return .network(urlError)
    }
}
