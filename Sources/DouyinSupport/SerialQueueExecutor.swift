import Dispatch

/// A task executor over a serial dispatch queue of its own.
///
/// Work that must go on while Swift concurrency's pool is busy runs here: on Linux that pool is
/// the global concurrent dispatch queue, which adds no thread while all of its threads look
/// busy, so a download awaiting there stood still under load (`PoolStarvationTests`). A serial
/// queue is served from libdispatch's overcommit pool and gets a thread at once.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
package final class SerialQueueExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: a DispatchQueue is thread-safe and the reference is immutable.
    private let queue: DispatchQueue

    /// An executor over a new serial queue named `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `job` on the queue.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor transfers run on (the downloader's, the API client's).
    package static let transfers = SerialQueueExecutor(label: "DouyinSupport.transfers")
}

/// Starts tasks that carry a transfer.
package enum TransferTask {
    /// A task running `body` on ``SerialQueueExecutor/transfers`` where task executors exist
    /// (Linux, and Apple systems of 2024 on), else an ordinary task.
    package static func start(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            return Task(executorPreference: SerialQueueExecutor.transfers) { await body() }
        }
        return Task { await body() }
    }
}
