import DouyinSupport
import Foundation

/// Where an answer of ``TwoTierCache`` came from.
public enum CacheSource: String, Sendable, Hashable {
    /// The memory tier.
    case memory
    /// The disk tier (and it is now in memory too).
    case disk
    /// A download (and it is now in both tiers).
    case network
}

extension TwoTierCache {
    /// Hit and miss counts of a ``TwoTierCache``, per tier, since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Answers from memory.
        public var memoryHits = 0
        /// Answers from disk.
        public var diskHits = 0
        /// Requests that found neither tier and waited for a download.
        public var misses = 0
        /// Downloads started (one per URL however many callers waited).
        public var downloads = 0
        /// Downloads that failed.
        public var downloadFailures = 0
        /// Downloads the disk tier could not store (kept in memory only).
        public var diskWriteFailures = 0
        /// Downloads whose length could not be checked (a body delimited only by the server
        /// closing the connection, see ``DownloadedData/isLengthChecked``): handed to their
        /// waiters, stored in neither tier.
        public var uncheckedDownloads = 0
    }
}

/// The two-tier cache: memory, then disk, then one shared download, keyed by the md5 of the
/// URL's absolute string.
///
/// A disk hit is promoted to memory; a download is stored in both tiers before its waiters
/// resume. However many callers wait on one URL, it is downloaded once; a waiter that cancels
/// stops waiting without disturbing the others, and the download is cancelled only when no one
/// waits any more. When the disk cannot store an entry the memory tier still keeps it.
public final class TwoTierCache: Sendable {
    /// The memory tier: md5 key → bytes, cost = byte count.
    public let memory: MemoryCache<String, Data>
    /// The disk tier, when there is one.
    public let disk: DiskCache?
    /// The downloader behind both tiers.
    public let downloader: Downloader

    private struct Flight {
        /// Tells this download from a later one of the same URL, after this one was abandoned.
        let id: Int
        var waiters: [Int: CheckedContinuation<Data, any Error>] = [:]
        var operation: DownloadOperation?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextWaiter = 0
        /// Waiters whose task was cancelled before they joined a flight.
        var cancelledEarly: Set<Int> = []
        var statistics = Statistics()
    }

    private let state = LockedBox(State())

    /// Makes a cache from its parts.
    public init(memory: MemoryCache<String, Data> = MemoryCache(), disk: DiskCache?, downloader: Downloader = Downloader()) {
        self.memory = memory
        self.disk = disk
        self.downloader = downloader
    }

    /// Makes a cache with a disk tier in `directory`: 64 MB of memory and 512 MB of disk by default.
    ///
    /// - Throws: ``CacheError/unwritable(path:errno:)`` when the directory cannot be created.
    public convenience init(directory: URL, memoryLimit: Int = 64 << 20, diskLimit: Int = 512 << 20) throws(CacheError) {
        self.init(
            memory: MemoryCache(configuration: .init(costLimit: memoryLimit)),
            disk: try DiskCache(directory: directory, configuration: DiskCache.Configuration(sizeLimit: diskLimit))
        )
    }

    /// The cache key of a URL: the md5 hex of its absolute string.
    public static func key(for url: URL) -> String {
        MD5.hex(url.absoluteString)
    }

    /// The bytes of `url`: from memory, else disk, else one download shared with every caller
    /// waiting on the same URL.
    public func data(for url: URL, priority: DownloadPriority = .normal) async throws -> Data {
        try await fetch(url, priority: priority).data
    }

    /// The bytes of `url` and which tier answered.
    public func fetch(_ url: URL, priority: DownloadPriority = .normal) async throws -> (data: Data, source: CacheSource) {
        let key = Self.key(for: url)
        if let (data, source) = lookUp(key) { return (data, source) }
        let waiter = state.withLock { state in
            state.statistics.misses += 1
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let data = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key: key, url: url, priority: priority, waiter: waiter, continuation: continuation)
            }
        } onCancel: {
            leave(key: key, waiter: waiter)
        }
        return (data, .network)
    }

    /// The completion-handler form of ``data(for:priority:)``; cancel the returned task to stop waiting.
    @discardableResult
    public func data(
        for url: URL, priority: DownloadPriority = .normal,
        completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> Task<Void, Never> {
        Task {
            do {
                completion(.success(try await data(for: url, priority: priority)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// The bytes of `url` if either tier holds them; never downloads.
    public func cachedData(for url: URL) -> Data? {
        lookUp(Self.key(for: url))?.data
    }

    /// Puts bytes in both tiers for `url`.
    ///
    /// - Throws: the disk tier's ``CacheError``; the memory tier has the bytes even then.
    public func store(_ data: Data, for url: URL) throws(CacheError) {
        let key = Self.key(for: url)
        memory.setValue(data, for: key, cost: data.count)
        try disk?.store(data, forKey: key)
    }

    /// Removes `url` from both tiers.
    public func remove(for url: URL) {
        let key = Self.key(for: url)
        memory.removeValue(for: key)
        disk?.remove(forKey: key)
    }

    /// Empties both tiers.
    public func removeAll() {
        memory.removeAll()
        disk?.removeAll()
    }

    /// The hit and miss counts so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// How many callers wait on the download of `url` now; a test hook, to cancel one waiter
    /// only once the others have joined.
    package func waiterCount(for url: URL) -> Int {
        state.withLock { $0.flights[Self.key(for: url)]?.waiters.count ?? 0 }
    }

    // MARK: - Internals

    private func lookUp(_ key: String) -> (data: Data, source: CacheSource)? {
        if let data = memory.value(for: key) {
            state.withLock { $0.statistics.memoryHits += 1 }
            return (data, .memory)
        }
        if let data = disk?.data(forKey: key) {
            memory.setValue(data, for: key, cost: data.count)
            state.withLock { $0.statistics.diskHits += 1 }
            return (data, .disk)
        }
        return nil
    }

    private func join(key: String, url: URL, priority: DownloadPriority, waiter: Int, continuation: CheckedContinuation<Data, any Error>) {
        // Resumed after the lock is released: resuming a task while holding the lock deadlocks
        // against its cancellation handler (`leave`), which takes the lock.
        let (start, cancelledEarly) = state.withLock { state -> (Bool, Bool) in
            if state.cancelledEarly.remove(waiter) != nil { return (false, true) }
            let isNew = state.flights[key] == nil
            state.flights[key, default: Flight(id: waiter)].waiters[waiter] = continuation
            if isNew { state.statistics.downloads += 1 }
            return (isNew, false)
        }
        if cancelledEarly { continuation.resume(throwing: CancellationError()) }
        guard start else { return }
        let operation = downloader.download(url, priority: priority) { [self] result in
            finish(key: key, flight: waiter, result: result)
        }
        let abandoned = state.withLock { state in
            guard state.flights[key]?.id == waiter else { return true }
            state.flights[key]?.operation = operation
            return false
        }
        if abandoned { operation.cancel() }
    }

    private func leave(key: String, waiter: Int) {
        let (continuation, orphaned) = state.withLock { state -> (CheckedContinuation<Data, any Error>?, DownloadOperation?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else {
                state.cancelledEarly.insert(waiter)
                return (nil, nil)
            }
            // The last waiter left: nobody wants the bytes, stop the transfer.
            let orphaned = state.flights[key]?.waiters.isEmpty == true ? state.flights.removeValue(forKey: key)?.operation : nil
            return (continuation, orphaned)
        }
        continuation?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }

    private func finish(key: String, flight: Int, result: Result<DownloadedData, CacheError>) {
        if case .success(let body) = result, body.isLengthChecked {
            // Store before anyone resumes, so the next caller finds the bytes.
            memory.setValue(body.data, for: key, cost: body.data.count)
            do {
                try disk?.store(body.data, forKey: key)
            } catch {
                state.withLock { $0.statistics.diskWriteFailures += 1 }
            }
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Data, any Error>] in
            switch result {
            case .failure: state.statistics.downloadFailures += 1
            case .success(let body) where !body.isLengthChecked: state.statistics.uncheckedDownloads += 1
            case .success: break
            }
            guard state.flights[key]?.id == flight else { return [] }
            return state.flights.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters {
            waiter.resume(with: result.map(\.data).mapError { $0 as any Error })
        }
    }
}
