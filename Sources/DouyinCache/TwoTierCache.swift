import DouyinLogging
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
    /// Where the cache's own events go: ``Configuration/log``, else the downloader's.
    let log: LogHandler?

    /// What a waiter is resumed with: the bytes, where they came from, and why a download
    /// was not stored in the disk tier (nil when it was, or when no download was needed).
    private typealias Answer = (data: Data, source: CacheSource, storeFailure: CacheError?)

    /// One URL's download and who waits on it; the waiting itself is DouyinSupport's
    /// `SingleFlight` (a waiter leaving ends only its wait; the last one stops the download).
    private struct Flight {
        let call: SingleFlight<Answer>
        var operation: DownloadOperation?
        var priority: DownloadPriority
        /// The progress handlers of the callers waiting now, by caller.
        var observers: [Int: @Sendable (FetchProgress) -> Void] = [:]
        /// The last progress reported, handed to a caller that joins late.
        var latest: FetchProgress?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextObserver = 0
        var statistics = Statistics()
    }

    private let state = LockedBox(State())
    /// A test hook run after a miss in both tiers and before joining a flight, where another
    /// flight can finish unseen.
    private let afterMiss: (@Sendable (URL) async -> Void)?

    /// Makes a cache from its parts.
    /// The cache's own events (a download not stored on disk) go to the downloader's `log`.
    public convenience init(memory: MemoryCache<String, Data> = MemoryCache(), disk: DiskCache?, downloader: Downloader = Downloader()) {
        self.init(memory: memory, disk: disk, downloader: downloader, afterMiss: nil)
    }

    /// Makes a cache from its parts with a hook run between a miss and the join (tests use it
    /// to finish another flight exactly there).
    package init(memory: MemoryCache<String, Data>, disk: DiskCache?, downloader: Downloader, log: LogHandler? = nil,
                 afterMiss: (@Sendable (URL) async -> Void)?) {
        self.memory = memory
        self.disk = disk
        self.downloader = downloader
        self.log = log ?? downloader.configuration.log
        self.afterMiss = afterMiss
    }

    /// Makes a cache with a disk tier in `directory`, each part made from `configuration`
    /// (by default 64 MB of memory, 512 MB of disk, 6 downloads at once, 64 MB per body), its
    /// ``Configuration/log`` handed to each part whose own is `nil`.
    ///
    /// - Throws: ``CacheError/unwritable(path:errno:)`` when the directory cannot be created;
    ///   ``CacheError/configurationOutOfRange(field:value:allowed:)`` when the downloader's
    ///   configuration has a field outside its range.
    public convenience init(directory: URL, configuration: Configuration = Configuration()) throws(CacheError) {
        let parts = configuration.parts
        self.init(
            memory: MemoryCache(configuration: parts.memory),
            disk: try DiskCache(directory: directory, configuration: parts.disk),
            downloader: try Downloader(configuration: parts.downloader),
            log: configuration.log,
            afterMiss: nil
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
    ///
    /// `progress`, when given, hears the bytes received so far and the expected total (when
    /// the origin said it) while a download runs, on a background thread; a caller joining a
    /// download already running first hears where it is. Nothing is reported for a memory or
    /// disk hit, and nothing after this call returns or throws.
    ///
    /// - Throws: the download's ``CacheError``; `CancellationError` when the task is cancelled
    ///   while it waits (the download goes on while other callers wait for it).
    public func fetch(
        _ url: URL, priority: DownloadPriority = .normal, progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> (data: Data, source: CacheSource) {
        let answer = try await answer(url, priority: priority, progress: progress)
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

    private func answer(_ url: URL, priority: DownloadPriority, progress: (@Sendable (FetchProgress) -> Void)? = nil) async throws -> Answer {
        let key = Self.key(for: url)
        if let (data, source) = lookUp(key) { return (data, source, nil) }
        await afterMiss?(url)
        // A caller already cancelled starts nothing (its flight would be abandoned at once).
        try Task.checkCancellation()
        enum Joined { case found(Data), waiting(SingleFlight<Answer>.Subscription, start: SingleFlight<Answer>?) }
        let (joined, observer, latest) = state.withLock { state -> (Joined, Int?, FetchProgress?) in
            let observer = progress.map { _ in state.nextObserver }
            if observer != nil { state.nextObserver += 1 }
            if var flight = state.flights[key], let subscription = flight.call.subscribe() {
                state.statistics.misses += 1
                if let observer, let progress { flight.observers[observer] = progress }
                if priority > flight.priority {
                    flight.priority = priority
                    // Best effort: a download already running keeps its slot either way.
                    flight.operation?.queuePriority = priority.queuePriority
                }
                state.flights[key] = flight
                return (.waiting(subscription, start: nil), observer, flight.latest)
            }
            // A flight of this URL may have finished between the miss and this lock: it stored
            // its bytes in memory before it left, so look again rather than download twice (the
            // memory tier has its own lock, never taken around this one).
            if let data = memory.value(for: key) {
                state.statistics.memoryHits += 1
                return (.found(data), nil, nil)
            }
            state.statistics.misses += 1
            state.statistics.downloads += 1
            let call = SingleFlight<Answer>()
            var flight = Flight(call: call, priority: priority)
            if let observer, let progress { flight.observers[observer] = progress }
            state.flights[key] = flight
            // Subscribed under the lock that published the flight: nobody can abandon it first.
            guard let subscription = call.subscribe() else { preconditionFailure("a new flight refused its first waiter") }
            return (.waiting(subscription, start: call), observer, nil)
        }
        switch joined {
        case .found(let data): return (data, .memory, nil)
        case .waiting(let subscription, let call):
            if let call { start(call, key: key, url: url, priority: priority) }
            if let latest, let progress { progress(latest) }
            defer {
                if let observer { state.withLock { _ = $0.flights[key]?.observers.removeValue(forKey: observer) } }
            }
            return try await subscription.value()
        }
    }

    /// Starts the download of a new flight; its last waiter leaving cancels it.
    private func start(_ call: SingleFlight<Answer>, key: String, url: URL, priority: DownloadPriority) {
        let operation = downloader.download(url, priority: priority, progress: { [self] received, expected in
            report(FetchProgress(receivedBytes: received, expectedBytes: expected), key: key, call: call)
        }, completion: { [self] result in
            finish(key: key, url: url, call: call, result: result)
        })
        state.withLock { state in
            if state.flights[key]?.call === call { state.flights[key]?.operation = operation }
        }
        call.onAbandoned { [self] in
            state.withLock { state in
                if state.flights[key]?.call === call { state.flights[key] = nil }
            }
            operation.cancel()
        }
    }

    private func report(_ progress: FetchProgress, key: String, call: SingleFlight<Answer>) {
        let observers = state.withLock { state -> [@Sendable (FetchProgress) -> Void] in
            guard state.flights[key]?.call === call else { return [] }
            state.flights[key]?.latest = progress
            return Array(state.flights[key]?.observers.values ?? [:].values)
        }
        for observer in observers { observer(progress) }
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
        state.withLock { $0.flights[Self.key(for: url)]?.call.waiterCount ?? 0 }
    }

    /// How many downloads the cache keeps a record of (a test hook: a flight every waiter left,
    /// or that finished, must leave nothing behind).
    package var flightCount: Int { state.withLock { $0.flights.count } }

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

    private func finish(key: String, url: URL, call: SingleFlight<Answer>, result: Result<DownloadedData, CacheError>) {
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
        state.withLock { state in
            switch result {
            case .failure: state.statistics.downloadFailures += 1
            case .success(let body) where !body.isLengthChecked: state.statistics.uncheckedDownloads += 1
            case .success: break
            }
            // Out of the table before its waiters resume, so a caller who comes next starts
            // afresh (or finds the bytes) instead of joining a finished flight.
            if state.flights[key]?.call === call { state.flights[key] = nil }
        }
        if let storeFailure, let log {
            log(LogEvent(level: .notice, subsystem: "DouyinCache.TwoTierCache", message: "download not stored on disk",
                         metadata: ["url": url.absoluteString, "error": "\(storeFailure)"]))
        }
        call.finish(result.map { ($0.data, .network, storeFailure) }.mapError { $0 as any Error })
    }
}
