import DouyinLogging
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSessionConfiguration, for the URLSession initializers
#endif

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
/// Downloads go through the package's HTTP transport: libcurl's multi interface on Linux (a
/// waiting download costs no CPU), URLSession on Apple platforms, or URLSession explicitly with
/// ``init(sessionConfiguration:)``. The framing of an answer is checked as the API client checks
/// it (two different `Content-Length`s, or one beside `Transfer-Encoding`, are
/// ``CacheError/invalidResponse(url:reason:)``).
///
/// Only `http` and `https` are fetched by default, redirects included: URLs in feeds and API
/// answers are data. Any other scheme is ``CacheError/unsupportedScheme(url:scheme:)`` before
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
        /// Where the downloader's events go (each download's start, and its end with the bytes
        /// or its failure); a ``TwoTierCache`` sends its own through its downloader's. `nil`
        /// by default: nothing is logged.
        public var log: LogHandler?

        /// Builds a configuration; it stores the values as given (the downloader checks them).
        public init(maxConcurrentDownloads: Int = 6, maximumBodySize: Int? = 64 << 20, allowsFileURLs: Bool = false, log: LogHandler? = nil) {
            self.maxConcurrentDownloads = maxConcurrentDownloads
            self.maximumBodySize = maximumBodySize
            self.allowsFileURLs = allowsFileURLs
            self.log = log
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
    private let transport: any HTTPTransport

    /// Makes a downloader with the default limits (always valid) on this platform's default
    /// transport (libcurl on Linux, URLSession on Apple platforms).
    public convenience init() {
        self.init(checked: Configuration(), transport: HTTPTransports.platformDefault)
    }

    /// Makes a downloader with the default limits over a URLSession of its own, made from a
    /// copy of `sessionConfiguration` (its proxies, TLS settings and protocol classes apply;
    /// its URL cache is switched off: the caches keep the bytes).
    public convenience init(sessionConfiguration: URLSessionConfiguration) {
        self.init(checked: Configuration(), transport: URLSessionTransport(configuration: sessionConfiguration))
    }

    /// Makes a downloader with `configuration`'s limits on this platform's default transport.
    ///
    /// - Throws: ``CacheError/configurationOutOfRange(field:value:allowed:)`` naming the first
    ///   field outside its range (``Configuration/maxConcurrentDownloads`` below 1, a negative
    ///   ``Configuration/maximumBodySize``); nothing is clamped.
    public convenience init(configuration: Configuration) throws(CacheError) {
        try configuration.check()
        self.init(checked: configuration, transport: HTTPTransports.platformDefault)
    }

    /// Makes a downloader with `configuration`'s limits over a URLSession of its own, made from
    /// a copy of `sessionConfiguration`; throws as ``init(configuration:)``.
    public convenience init(configuration: Configuration, sessionConfiguration: URLSessionConfiguration) throws(CacheError) {
        try configuration.check()
        self.init(checked: configuration, transport: URLSessionTransport(configuration: sessionConfiguration))
    }

    /// Makes a downloader over `transport` (tests: a scripted transport, a transport of their own).
    package convenience init(configuration: Configuration, transport: any HTTPTransport) throws(CacheError) {
        try configuration.check()
        self.init(checked: configuration, transport: transport)
    }

    private init(checked configuration: Configuration, transport: any HTTPTransport) {
        self.configuration = configuration
        queue = OperationQueue()
        queue.name = "DouyinCache.Downloader"
        queue.maxConcurrentOperationCount = configuration.maxConcurrentDownloads
        self.transport = transport
    }

    /// Queues a download; `completion` runs once, on a background thread, with the bytes or
    /// the reason. `progress` receives bytes so far and the expected total when known.
    @discardableResult
    public func download(
        _ url: URL, priority: DownloadPriority = .normal,
        progress: (@Sendable (_ received: Int64, _ expected: Int64?) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadedData, CacheError>) -> Void
    ) -> DownloadOperation {
        let limit = configuration.maximumBodySize, allowsFiles = configuration.allowsFileURLs, log = configuration.log
        var logged = completion
        if let log {
            logged = { result in
                log(Self.endEvent(of: url, result))
                completion(result)
            }
        }
        let operation = DownloadOperation(url: url, progress: progress, completion: logged) { [transport] operation in
            log?(LogEvent(level: .debug, subsystem: Self.subsystem, message: "download started", metadata: ["url": url.absoluteString]))
            Self.begin(operation, transport: transport, limit: limit, allowsFiles: allowsFiles)
        }
        operation.queuePriority = priority.queuePriority
        queue.addOperation(operation)
        return operation
    }

    /// The ``LogEvent/subsystem`` of the downloader's events.
    static let subsystem = "DouyinCache.Downloader"

    /// A download's last event: its bytes, or why it failed (a cancel is not a failure).
    private static func endEvent(of url: URL, _ result: Result<DownloadedData, CacheError>) -> LogEvent {
        switch result {
        case .success(let body):
            return LogEvent(level: .info, subsystem: subsystem, message: "download ended",
                            metadata: ["url": url.absoluteString, "bytes": String(body.data.count)])
        case .failure(.cancelled):
            return LogEvent(level: .debug, subsystem: subsystem, message: "download cancelled", metadata: ["url": url.absoluteString])
        case .failure(let error):
            return LogEvent(level: .error, subsystem: subsystem, message: "download failed",
                            metadata: ["url": url.absoluteString, "error": "\(error)"])
        }
    }

    private static func begin(_ operation: DownloadOperation, transport: any HTTPTransport, limit: Int?, allowsFiles: Bool) {
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
            operation.attach(TransferTask.start {
                await transfer(operation, over: transport, limit: limit)
            })
        default:
            operation.complete(.failure(.unsupportedScheme(url: url.absoluteString, scheme: url.scheme ?? "")))
        }
    }
}
