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
    /// The limits of the three parts a ``TwoTierCache`` makes for itself in
    /// ``TwoTierCache/init(directory:configuration:)``.
    public struct Configuration: Sendable, Hashable {
        /// The memory tier's limits: 64 MB of bytes by default, no count or age limit.
        public var memory: MemoryCache<String, Data>.Configuration
        /// The disk tier's limits: 512 MB of bytes by default, no age limit.
        public var disk: DiskCache.Configuration
        /// The downloader's limits: 6 downloads at once and 64 MB per body by default.
        public var downloader: Downloader.Configuration

        /// Builds a configuration from the parts' own.
        public init(
            memory: MemoryCache<String, Data>.Configuration = .init(),
            disk: DiskCache.Configuration = .init(),
            downloader: Downloader.Configuration = .init()
        ) {
            self.memory = memory
            self.disk = disk
            self.downloader = downloader
        }
    }

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

    /// What a waiter is resumed with: the bytes, where they came from, and why a download
    /// was not stored in the disk tier (nil when it was, or when no download was needed).
    private typealias Answer = (data: Data, source: CacheSource, storeFailure: CacheError?)

    private struct Flight {
        /// Tells this download from a later one of the same URL, after this one was abandoned.
        let id: Int
        var waiters: [Int: CheckedContinuation<Answer, any Error>] = [:]
        var operation: DownloadOperation?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextWaiter = 0
        /// Waiters between their miss and their join. One that leaves (its task cancelled)
        /// before it joins is taken out here, so its join resumes it at once; one that leaves
        /// after its flight resumed it is in neither place, and nothing is kept for it.
        var notYetJoined: Set<Int> = []
        var statistics = Statistics()
    }

    private let state = LockedBox(State())
    /// A test hook run after a miss in both tiers and before joining a flight, where another
    /// flight can finish unseen.
    private let afterMiss: (@Sendable (URL) async -> Void)?

    /// Makes a cache from its parts.
    public convenience init(memory: MemoryCache<String, Data> = MemoryCache(), disk: DiskCache?, downloader: Downloader = Downloader()) {
        self.init(memory: memory, disk: disk, downloader: downloader, afterMiss: nil)
    }

    /// Makes a cache from its parts with a hook run between a miss and the join (tests use it
    /// to finish another flight exactly there).
    package init(memory: MemoryCache<String, Data>, disk: DiskCache?, downloader: Downloader, afterMiss: (@Sendable (URL) async -> Void)?) {
        self.memory = memory
        self.disk = disk
        self.downloader = downloader
        self.afterMiss = afterMiss
    }

    /// Makes a cache with a disk tier in `directory`, each part made from `configuration`
    /// (by default 64 MB of memory, 512 MB of disk, 6 downloads at once, 64 MB per body).
    ///
    /// - Throws: ``CacheError/unwritable(path:errno:)`` when the directory cannot be created.
    public convenience init(directory: URL, configuration: Configuration = Configuration()) throws(CacheError) {
        self.init(
            memory: MemoryCache(configuration: configuration.memory),
            disk: try DiskCache(directory: directory, configuration: configuration.disk),
            downloader: Downloader(configuration: configuration.downloader)
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

    /// The bytes of `url` and which tier answered. A download the disk tier could not store is
    /// still answered (`.network`; it is in memory) and counted in
    /// ``Statistics/diskWriteFailures``; ``prefetch(_:priority:)`` throws instead.
    public func fetch(_ url: URL, priority: DownloadPriority = .normal) async throws -> (data: Data, source: CacheSource) {
        let answer = try await answer(url, priority: priority)
        return (answer.data, answer.source)
    }

    /// Makes sure `url` is held, downloading it (shared with any caller waiting on it) when
    /// neither tier has it, and says where it is: for a preloader that must not report as
    /// cached what was fetched and dropped.
    ///
    /// - Returns: the resource's size in bytes, and its source: ``CacheSource/memory`` or
    ///   ``CacheSource/disk`` when a tier already held it (`.memory` says nothing of the disk);
    ///   ``CacheSource/network`` when it was downloaded now and stored in both tiers (in memory
    ///   only when the cache has no disk tier).
    /// - Throws: the download's ``CacheError``; the disk tier's ``CacheError`` when the download
    ///   could not be stored there (``CacheError/diskFull(path:errno:)``,
    ///   ``CacheError/unwritable(path:errno:)`` for a read-only directory or a directory in the
    ///   entry's place, ``CacheError/entryTooLarge(key:size:limit:)``), the bytes then being in
    ///   memory only; ``CacheError/notStored(url:)`` when the body's length could not be checked;
    ///   `CancellationError` when the task is cancelled while it waits.
    @discardableResult
    public func prefetch(_ url: URL, priority: DownloadPriority = .low) async throws -> (byteCount: Int, source: CacheSource) {
        let answer = try await answer(url, priority: priority)
        if let failure = answer.storeFailure { throw failure }
        return (answer.data.count, answer.source)
    }

    private func answer(_ url: URL, priority: DownloadPriority) async throws -> Answer {
        let key = Self.key(for: url)
        if let (data, source) = lookUp(key) { return (data, source, nil) }
        await afterMiss?(url)
        let waiter = state.withLock { state in
            defer { state.nextWaiter += 1 }
            state.notYetJoined.insert(state.nextWaiter)
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key: key, url: url, priority: priority, waiter: waiter, continuation: continuation)
            }
        } onCancel: {
            leave(key: key, waiter: waiter)
        }
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

    private func join(key: String, url: URL, priority: DownloadPriority, waiter: Int, continuation: CheckedContinuation<Answer, any Error>) {
        enum Outcome { case cancelled, found(Data), joined, started }
        // Resumed after the lock is released: resuming a task while holding the lock deadlocks
        // against its cancellation handler (`leave`), which takes the lock.
        let outcome = state.withLock { state -> Outcome in
            guard state.notYetJoined.remove(waiter) != nil else { return .cancelled }
            if state.flights[key] != nil {
                state.statistics.misses += 1
                state.flights[key]?.waiters[waiter] = continuation
                return .joined
            }
            // A flight of this URL may have finished between the miss and this join: it
            // stored its bytes in memory before it left, so look again rather than download
            // twice (the memory tier has its own lock, never taken around this one).
            if let data = memory.value(for: key) {
                state.statistics.memoryHits += 1
                return .found(data)
            }
            state.statistics.misses += 1
            state.statistics.downloads += 1
            state.flights[key] = Flight(id: waiter, waiters: [waiter: continuation])
            return .started
        }
        switch outcome {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .found(let data): continuation.resume(returning: (data, .memory, nil))
        case .joined: break
        case .started:
            let operation = downloader.download(url, priority: priority) { [self] result in
                finish(key: key, url: url, flight: waiter, result: result)
            }
            let abandoned = state.withLock { state in
                guard state.flights[key]?.id == waiter else { return true }
                state.flights[key]?.operation = operation
                return false
            }
            if abandoned { operation.cancel() }
        }
    }

    private func leave(key: String, waiter: Int) {
        let (continuation, orphaned) = state.withLock { state -> (CheckedContinuation<Answer, any Error>?, DownloadOperation?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else {
                // Not joined yet: its join will resume it. Already resumed: nothing to do.
                state.notYetJoined.remove(waiter)
                return (nil, nil)
            }
            // The last waiter left: nobody wants the bytes, stop the transfer.
            let orphaned = state.flights[key]?.waiters.isEmpty == true ? state.flights.removeValue(forKey: key)?.operation : nil
            return (continuation, orphaned)
        }
        continuation?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }

    /// How many waiters the cache keeps any record of outside a flight (a test hook: a waiter
    /// that left after its flight resumed it must leave nothing behind).
    package var unjoinedWaiterCount: Int { state.withLock { $0.notYetJoined.count } }

    private func finish(key: String, url: URL, flight: Int, result: Result<DownloadedData, CacheError>) {
        var storeFailure: CacheError?
        if case .success(let body) = result {
            if body.isLengthChecked {
                // Store before anyone resumes, so the next caller finds the bytes.
                memory.setValue(body.data, for: key, cost: body.data.count)
                do throws(CacheError) {
                    try disk?.store(body.data, forKey: key)
                } catch {
                    storeFailure = error
                    state.withLock { $0.statistics.diskWriteFailures += 1 }
                }
            } else {
                storeFailure = .notStored(url: url.absoluteString)
            }
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Answer, any Error>] in
            switch result {
            case .failure: state.statistics.downloadFailures += 1
            case .success(let body) where !body.isLengthChecked: state.statistics.uncheckedDownloads += 1
            case .success: break
            }
            guard state.flights[key]?.id == flight else { return [] }
            return state.flights.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters {
            waiter.resume(with: result.map { ($0.data, .network, storeFailure) }.mapError { $0 as any Error })
        }
    }
}
