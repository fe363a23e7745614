import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How soon a download should run relative to others waiting in the ``Downloader``'s queue.
public enum DownloadPriority: Sendable, Hashable {
    /// Prefetching work that can wait.
    case low
    /// The default.
    case normal
    /// Something on screen now.
    case high

    var queuePriority: Operation.QueuePriority {
        switch self {
        case .low: .low
        case .normal: .normal
        case .high: .high
        }
    }
}

/// Downloads resources as `Operation`s on an `OperationQueue` with bounded concurrency.
///
/// A status other than 2xx is ``CacheError/httpStatus(_:url:)``. `file://` URLs are read from
/// disk by the operation itself, so demos and tests can run without a server.
public final class Downloader: Sendable {
    /// The queue the downloads run on; at most ``maxConcurrentDownloads`` at once. Not public:
    /// cancel a download through its ``DownloadOperation`` (or by leaving ``TwoTierCache``'s
    /// wait), never by reaching into the queue.
    package let queue: OperationQueue
    /// How many downloads run at once; 6 by default, like URLSession's per-host limit.
    public let maxConcurrentDownloads: Int
    private let session: URLSession
    private let tasks: SessionTasks

    /// Makes a downloader over its own URLSession (an ephemeral one by default: the caches
    /// keep the bytes, URLCache should not keep them twice).
    public init(maxConcurrentDownloads: Int = 6, configuration: URLSessionConfiguration = .ephemeral) {
        self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
        queue = OperationQueue()
        queue.name = "DouyinCache.Downloader"
        queue.maxConcurrentOperationCount = self.maxConcurrentDownloads
        tasks = SessionTasks()
        session = URLSessions.make(configuration: configuration, delegate: tasks)
    }

    deinit {
        URLSessions.tearDown(session)
    }

    /// Queues a download; `completion` runs once, on a background thread, with the bytes or
    /// the reason. `progress` receives bytes so far and the expected total when known.
    @discardableResult
    public func download(
        _ url: URL, priority: DownloadPriority = .normal,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Data, CacheError>) -> Void
    ) -> DownloadOperation {
        let operation = DownloadOperation(url: url, progress: progress, completion: completion) { [session, tasks] operation in
            Self.begin(operation, session: session, tasks: tasks)
        }
        operation.queuePriority = priority.queuePriority
        queue.addOperation(operation)
        return operation
    }

    private static func begin(_ operation: DownloadOperation, session: URLSession, tasks: SessionTasks) {
        let url = operation.url
        switch url.scheme?.lowercased() {
        case "file":
            DispatchQueue.global().async {
                do {
                    let data = try Data(contentsOf: url)
                    operation.reportProgress(Int64(data.count), Int64(data.count))
                    operation.complete(.success(data))
                } catch {
                    operation.complete(.failure(.transport(url: url.absoluteString, reason: "\(error.localizedDescription)")))
                }
            }
        case "http", "https":
            var request = URLRequest(url: url)
            request.cachePolicy = .reloadIgnoringLocalCacheData
            // The bytes as stored, so Content-Length counts what arrives: a server with a packed
            // copy beside the file (nginx's gzip_static) otherwise sends that, and its
            // Content-Length is the packed size while the session hands over unpacked bytes.
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            let task = session.dataTask(with: request)
            tasks.register(task, for: operation)
            operation.attach(task)
            task.resume()
        default:
            operation.complete(.failure(.unsupportedURL(url.absoluteString)))
        }
    }
}

/// One download: executing while its transfer runs, finished when its completion has run.
public final class DownloadOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is not Sendable; the mutable fields live in `state`.

    /// The resource being downloaded.
    public let url: URL
    private let progress: (@Sendable (Int64, Int64?) -> Void)?
    private let completion: @Sendable (Result<Data, CacheError>) -> Void
    private let begin: @Sendable (DownloadOperation) -> Void

    private struct State {
        var completed = false
        var task: URLSessionTask?
    }

    private let state = LockedBox(State())
    private let lifecycle = AsyncOperationState()

    init(
        url: URL, progress: (@Sendable (Int64, Int64?) -> Void)?,
        completion: @escaping @Sendable (Result<Data, CacheError>) -> Void,
        begin: @escaping @Sendable (DownloadOperation) -> Void
    ) {
        self.url = url
        self.progress = progress
        self.completion = completion
        self.begin = begin
        super.init()
    }

    /// Always true: the transfer runs on URLSession's threads.
    public override var isAsynchronous: Bool { true }
    /// Whether the transfer is running.
    public override var isExecuting: Bool { lifecycle.isExecuting }
    /// Whether the completion has run.
    public override var isFinished: Bool { lifecycle.isFinished }

    /// Starts the transfer, or completes as cancelled if cancelled before it began.
    public override func start() {
        // Completing first leaves a finish pending, which `lifecycle.start` then carries out.
        if isCancelled { complete(.failure(.cancelled(url: url.absoluteString))) }
        guard lifecycle.start(self) else { return }
        begin(self)
    }

    /// Cancels the transfer; the completion receives ``CacheError/cancelled(url:)``.
    public override func cancel() {
        super.cancel()
        let task = state.withLock { $0.task }
        task?.cancel()
        if task == nil, isExecuting { complete(.failure(.cancelled(url: url.absoluteString))) }
    }

    func attach(_ task: URLSessionTask) {
        state.withLock { $0.task = task }
        if isCancelled { task.cancel() }
    }

    func reportProgress(_ received: Int64, _ expected: Int64?) {
        progress?(received, expected)
    }

    /// Runs the completion once and finishes; later calls (a callback racing a cancel) are ignored.
    func complete(_ result: Result<Data, CacheError>) {
        let first = state.withLock { state in
            defer { state.completed = true }
            return !state.completed
        }
        guard first else { return }
        completion(isCancelled ? .failure(.cancelled(url: url.absoluteString)) : result)
        state.withLock { $0.task = nil }
        lifecycle.finish(self)
    }
}

/// The session delegate: collects each task's bytes and completes its operation.
private final class SessionTasks: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `transfers` is only touched under its lock.
    private struct Transfer {
        let operation: DownloadOperation
        var data = Data()
        var expected: Int64?
        var status = 0
    }

    private let transfers = LockedBox([Int: Transfer]())

    func register(_ task: URLSessionTask, for operation: DownloadOperation) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(operation: operation) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        // A server may encode the body although identity was asked for (`gzip_static always`):
        // its Content-Length then counts encoded bytes, not the decoded ones received, so it
        // is not compared (the decoder checks the encoded stream itself).
        let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        let encoded = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
        transfers.withLock { transfers in
            transfers[dataTask.taskIdentifier]?.status = http?.statusCode ?? 0
            let expected = response.expectedContentLength
            transfers[dataTask.taskIdentifier]?.expected = expected >= 0 && !encoded ? expected : nil
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report = transfers.withLock { transfers -> (DownloadOperation, Int64, Int64?)? in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            transfers[dataTask.taskIdentifier] = nil  // Take it out so the append does not copy.
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.operation, Int64(transfer.data.count), transfer.expected)
        }
        if let (operation, received, expected) = report { operation.reportProgress(received, expected) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = transfer.operation.url.absoluteString
        if let error {
            transfer.operation.complete(.failure(.transport(url: url, reason: error.localizedDescription)))
        } else if !(200..<300).contains(transfer.status) {
            transfer.operation.complete(.failure(.httpStatus(transfer.status, url: url)))
        } else if let expected = transfer.expected, Int64(transfer.data.count) != expected {
            // A body shorter than Content-Length is a dropped connection, never a whole file.
            transfer.operation.complete(.failure(.transport(url: url, reason: "got \(transfer.data.count) of \(expected) bytes")))
        } else {
            transfer.operation.complete(.success(transfer.data))
        }
    }
}
