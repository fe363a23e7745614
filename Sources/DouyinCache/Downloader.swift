import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How soon a download should run relative to others waiting in the ``Downloader``'s queue;
/// ordered ``low`` < ``normal`` < ``high``.
public enum DownloadPriority: Sendable, Hashable, Comparable {
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

/// The bytes of a finished download, and whether their length was checked.
public struct DownloadedData: Sendable, Hashable {
    /// The body as received (decoded when the server encoded it anyway).
    public var data: Data
    /// Whether the transfer was framed, so a body cut short could not pass for a whole one:
    /// an identity body with a `Content-Length` (compared with the bytes received), an encoded
    /// one with a `Content-Length` or any `chunked` body (the transfer layer checks the framing
    /// and fails a short one), or a file read whole. False for a body the server delimited only
    /// by closing the connection: a truncated one looks exactly like a whole one, so
    /// ``TwoTierCache`` hands such bytes to its waiters but stores them in neither tier.
    public var isLengthChecked: Bool

    /// Wraps a body.
    public init(data: Data, isLengthChecked: Bool) {
        self.data = data
        self.isLengthChecked = isLengthChecked
    }
}

/// Downloads resources as `Operation`s on an `OperationQueue` with bounded concurrency.
///
/// Only `200 OK` and `203 Non-Authoritative Information` are success: the request never asks
/// for a range, so `206 Partial Content` is a misbehaving server and is refused like any other
/// status (``CacheError/httpStatus(_:url:)``), as are `204`, other 2xx and every error status
/// (each refused as soon as its head arrives, without reading the body). A body longer than
/// ``Configuration/maximumBodySize`` is ``CacheError/bodyTooLarge(url:limit:)``: refused from its
/// `Content-Length` before a byte of it is read, or stopped as soon as it grows past the limit.
/// What is checked when is said at ``DownloadedData/isLengthChecked``.
///
/// Only `http` and `https` are fetched by default: URLs in feeds and API answers are data, and
/// FoundationNetworking would otherwise follow `ftp://` (through libcurl) or read `file://`
/// from this machine. Any other scheme is ``CacheError/unsupportedScheme(url:scheme:)`` before
/// a connection is made or a file opened. `file://` is read from disk by the operation itself
/// only when ``Configuration/allowsFileURLs`` is on (demos, tests, explicit local use), and then
/// only a regular file no larger than ``Configuration/maximumBodySize``.
public final class Downloader: Sendable {
    /// The limits of a downloader.
    public struct Configuration: Sendable, Hashable {
        /// How many downloads run at once; 6 by default; 1 or more (checked by
        /// ``Downloader/init(configuration:sessionConfiguration:)``).
        public var maxConcurrentDownloads: Int
        /// The largest body accepted, in bytes (decoded bytes when the server encodes the
        /// body); 64 MB by default; 0 or more; `nil` means no limit. A lying or endless body
        /// otherwise grows in memory until the process dies.
        public var maximumBodySize: Int?
        /// Whether `file://` URLs are read from this machine's disk; off by default, so a
        /// URL that came from the network can never copy a local file into the cache. Turn it
        /// on only for URLs the program itself makes. Even then only regular files are read
        /// (a FIFO, device or directory is ``CacheError/notARegularFile(url:)``, found without
        /// blocking) and ``maximumBodySize`` applies.
        public var allowsFileURLs: Bool

        /// Builds a configuration; it stores the values as given (the downloader checks them).
        public init(maxConcurrentDownloads: Int = 6, maximumBodySize: Int? = 64 << 20, allowsFileURLs: Bool = false) {
            self.maxConcurrentDownloads = maxConcurrentDownloads
            self.maximumBodySize = maximumBodySize
            self.allowsFileURLs = allowsFileURLs
        }

        /// The first field outside its range, as the error the downloader throws.
        func check() throws(CacheError) {
            if maxConcurrentDownloads < 1 {
                throw .configurationOutOfRange(field: "maxConcurrentDownloads", value: String(maxConcurrentDownloads), allowed: "1 or more")
            }
            if let maximumBodySize, maximumBodySize < 0 {
                throw .configurationOutOfRange(field: "maximumBodySize", value: String(maximumBodySize), allowed: "0 or more bytes, or nil for no limit")
            }
        }
    }

    /// The limits this downloader keeps.
    public let configuration: Configuration
    /// The queue the downloads run on; at most ``Configuration/maxConcurrentDownloads`` at
    /// once. Not public: cancel a download through its ``DownloadOperation`` (or by leaving
    /// ``TwoTierCache``'s wait), never by reaching into the queue.
    package let queue: OperationQueue
    private let session: URLSession
    private let tasks: SessionTasks

    /// Makes a downloader with the default limits (always valid) over its own URLSession,
    /// made from a copy of `sessionConfiguration` (ephemeral by default: the caches keep the
    /// bytes, URLCache should not keep them twice).
    public convenience init(sessionConfiguration: URLSessionConfiguration = .ephemeral) {
        self.init(checked: Configuration(), sessionConfiguration: sessionConfiguration)
    }

    /// Makes a downloader with `configuration`'s limits over its own URLSession, made from a
    /// copy of `sessionConfiguration` (ephemeral by default).
    ///
    /// - Throws: ``CacheError/configurationOutOfRange(field:value:allowed:)`` naming the first
    ///   field outside its range (``Configuration/maxConcurrentDownloads`` below 1, a negative
    ///   ``Configuration/maximumBodySize``); nothing is clamped.
    public convenience init(configuration: Configuration, sessionConfiguration: URLSessionConfiguration = .ephemeral) throws(CacheError) {
        try configuration.check()
        self.init(checked: configuration, sessionConfiguration: sessionConfiguration)
    }

    private init(checked configuration: Configuration, sessionConfiguration: URLSessionConfiguration) {
        self.configuration = configuration
        queue = OperationQueue()
        queue.name = "DouyinCache.Downloader"
        queue.maxConcurrentOperationCount = configuration.maxConcurrentDownloads
        tasks = SessionTasks(maximumBodySize: configuration.maximumBodySize)
        session = URLSessions.make(configuration: sessionConfiguration, delegate: tasks, delegateQueue: SerialDelegateQueue())
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
        completion: @escaping @Sendable (Result<DownloadedData, CacheError>) -> Void
    ) -> DownloadOperation {
        let limit = configuration.maximumBodySize, allowsFiles = configuration.allowsFileURLs
        let operation = DownloadOperation(url: url, progress: progress, completion: completion) { [session, tasks] operation in
            Self.begin(operation, session: session, tasks: tasks, limit: limit, allowsFiles: allowsFiles)
        }
        operation.queuePriority = priority.queuePriority
        queue.addOperation(operation)
        return operation
    }

    private static func begin(_ operation: DownloadOperation, session: URLSession, tasks: SessionTasks, limit: Int?, allowsFiles: Bool) {
        let url = operation.url
        switch url.scheme?.lowercased() {
        case "file" where allowsFiles:
            DispatchQueue.global().async {
                operation.complete(LocalFile.read(url, limit: limit).map {
                    operation.reportProgress(Int64($0.count), Int64($0.count))
                    return DownloadedData(data: $0, isLengthChecked: true)
                })
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
            operation.complete(.failure(.unsupportedScheme(url: url.absoluteString, scheme: url.scheme ?? "")))
        }
    }
}

/// The session delegate: collects each task's bytes, refuses what the downloader does not
/// accept as early as it can tell, and completes each task's operation.
private final class SessionTasks: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `transfers` is only touched under its lock; the limit is immutable.
    private struct Transfer {
        let operation: DownloadOperation
        var data = Data()
        /// The identity body's `Content-Length`, compared with the bytes received.
        var expected: Int64?
        /// Whether the transfer layer frames the body (see `DownloadedData.isLengthChecked`).
        var framed = false
        /// Why the transfer was stopped on purpose; it wins over the cancellation that follows.
        var refusal: CacheError?
    }

    private let transfers = LockedBox([Int: Transfer]())
    private let maximumBodySize: Int?
    init(maximumBodySize: Int?) {
        self.maximumBodySize = maximumBodySize
    }

    func register(_ task: URLSessionTask, for operation: DownloadOperation) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(operation: operation) }
    }

    /// The statuses that mean "here is the whole resource": the request never asks for a range.
    static let acceptedStatuses: Set<Int> = [200, 203]

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        // A server may encode the body although identity was asked for (`gzip_static always`):
        // its Content-Length then counts encoded bytes, not the decoded ones received, so it is
        // not compared here (the transfer layer checks the encoded bytes against it).
        let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        let encoded = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
        let hasLength = http?.value(forHTTPHeaderField: "Content-Length") != nil
        let chunked = http?.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        let length = response.expectedContentLength
        let refused = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return false }
            let url = transfer.operation.url.absoluteString
            if !Self.acceptedStatuses.contains(status) {
                transfer.refusal = .httpStatus(status, url: url)
            } else if let limit = maximumBodySize, !encoded, length > Int64(limit) {
                transfer.refusal = .bodyTooLarge(url: url, limit: limit)
            }
            transfer.expected = length >= 0 && !encoded ? length : nil
            transfer.framed = hasLength || chunked
            transfers[dataTask.taskIdentifier] = transfer
            return transfer.refusal != nil
        }
        // Refused from the head alone: no byte of the body is kept. FoundationNetworking
        // keeps reading after a `.cancel` disposition until the server closes (a stalling
        // server held the task for its whole stall), so the task is cancelled as well.
        completionHandler(refused ? .cancel : .allow)
        if refused { dataTask.cancelWithoutWaiting() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report = transfers.withLock { transfers -> (DownloadOperation, Int64, Int64?, overLimit: Bool)? in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.refusal == nil else { return nil }
            transfers[dataTask.taskIdentifier] = nil  // Take it out so the append does not copy.
            if let limit = maximumBodySize, transfer.data.count + data.count > limit {
                // A body growing past the limit (a lying Content-Length, an endless stream) is
                // stopped here rather than held until the process runs out of memory.
                transfer.refusal = .bodyTooLarge(url: transfer.operation.url.absoluteString, limit: limit)
                transfer.data = Data()
                transfers[dataTask.taskIdentifier] = transfer
                return (transfer.operation, 0, nil, true)
            }
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.operation, Int64(transfer.data.count), transfer.expected, false)
        }
        guard let (operation, received, expected, overLimit) = report else { return }
        if overLimit {
            dataTask.cancelWithoutWaiting()
        } else {
            operation.reportProgress(received, expected)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = transfer.operation.url.absoluteString
        if let refusal = transfer.refusal {
            transfer.operation.complete(.failure(refusal))
        } else if let error {
            transfer.operation.complete(.failure(.transport(url: url, URLError(sessionError: error))))
        } else if let expected = transfer.expected, Int64(transfer.data.count) != expected {
            // A body shorter than Content-Length is a dropped connection, never a whole file.
            transfer.operation.complete(.failure(.truncated(url: url, received: Int64(transfer.data.count), expected: expected)))
        } else {
            transfer.operation.complete(.success(DownloadedData(data: transfer.data, isLengthChecked: transfer.framed)))
        }
    }
}

/// The queue the session's delegate runs on: one operation at a time, over a serial dispatch
/// queue of its own.
///
/// Without one, FoundationNetworking makes an `OperationQueue` over a concurrent dispatch queue:
/// each callback waits for a thread of the global pool, which adds none while the processors
/// look busy. libcurl meanwhile reads on the session's serial work queue, which keeps its
/// thread, and hands every chunk it reads to the delegate queue as an operation holding the
/// bytes. Under load (the cache tests in parallel under Thread Sanitizer) the first chunk of an
/// endless body reached the delegate after 1.6 s with gigabytes queued behind it, so the limit
/// was never seen. A serial dispatch queue is served by libdispatch's overcommit pool, which
/// gives it a thread at once.
private final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: OperationQueue is thread-safe; `dispatchQueue` is immutable.

    /// Held here because `underlyingQueue` does not retain it (unowned(unsafe) on Linux): the
    /// dispatch queue lives exactly as long as the operation queue that dispatches onto it.
    private let dispatchQueue = DispatchQueue(label: "DouyinCache.Downloader.delegate")

    override init() {
        super.init()
        name = "DouyinCache.Downloader.delegate"
        maxConcurrentOperationCount = 1
        underlyingQueue = dispatchQueue
    }
}

extension URLError {
    /// The session's error as the `URLError` it is (FoundationNetworking hands over an
    /// `NSError` in `NSURLErrorDomain`); anything else as `.unknown`.
    init(sessionError error: any Error) {
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
