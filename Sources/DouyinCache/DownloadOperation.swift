import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download: executing while its transfer runs, finished when its completion has run.
public final class DownloadOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is not Sendable; the mutable fields live in `state`.

    /// The resource being downloaded.
    public let url: URL
    private let progress: (@Sendable (Int64, Int64?) -> Void)?
    private let completion: @Sendable (Result<DownloadedData, CacheError>) -> Void
    private let begin: @Sendable (DownloadOperation) -> Void

    private struct State {
        var completed = false
        var task: URLSessionTask?
    }

    private let state = LockedBox(State())
    private let lifecycle = AsyncOperationState()

    init(
        url: URL, progress: (@Sendable (Int64, Int64?) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadedData, CacheError>) -> Void,
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
        task?.cancelWithoutWaiting()
        if task == nil, isExecuting { complete(.failure(.cancelled(url: url.absoluteString))) }
    }

    func attach(_ task: URLSessionTask) {
        state.withLock { $0.task = task }
        if isCancelled { task.cancelWithoutWaiting() }
    }

    func reportProgress(_ received: Int64, _ expected: Int64?) {
        progress?(received, expected)
    }

    /// Runs the completion once and finishes; later calls (a callback racing a cancel) are ignored.
    func complete(_ result: Result<DownloadedData, CacheError>) {
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

extension URLSessionTask {
    /// Cancels the task from another thread and returns at once.
    ///
    /// FoundationNetworking's `cancel()` waits (`sync`) for the session's work queue, where
    /// libcurl reads the socket, and the transfer stops only when that queue gets to it: against
    /// a loopback server sending as fast as it can, the wait took 0.07–0.4 s and the reading went
    /// on for up to 1.2 s (9 s under Thread Sanitizer). Meanwhile every chunk read is queued on
    /// the delegate queue with its bytes. Waiting on the delegate queue would stop it from
    /// dropping them (the refused transfer's chunks piled up there: 300 MB in one case); waiting
    /// on a cooperative thread (a waiter leaving ``TwoTierCache``) would hold up Swift concurrency.
    func cancelWithoutWaiting() {
        // A serial queue of its own: it gets a thread at once, where the global concurrent
        // queue waits for the pool (see `SerialDelegateQueue`).
        DispatchQueue(label: "DouyinCache.Downloader.cancel").async { self.cancel() }
    }
}
