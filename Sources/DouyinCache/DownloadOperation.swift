import DouyinSupport
import Foundation

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
        /// The transfer's task; cancelling it ends the transfer at once (the transport never
        /// blocks a cancel).
        var task: Task<Void, Never>?
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

    /// Always true: the transfer runs on the transport's thread.
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

    func attach(_ task: Task<Void, Never>) {
        state.withLock { $0.task = task }
        if isCancelled { task.cancel() }
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
