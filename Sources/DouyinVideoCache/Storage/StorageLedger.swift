import DouyinLogging
import DouyinSupport
import Foundation

/// The cache-wide books: which resources exist, how many bytes each holds, which are busy,
/// and the LRU eviction that keeps the total under the size limit.
///
/// Lock order: an entry may call in here while holding its own lock; this type never calls
/// into an entry while holding its lock, so the two cannot deadlock.
final class StorageLedger: Sendable {
    private struct Account {
        var bytes: Int64 = 0
        var lastUse: Double
        /// Open readers plus running downloads: a busy resource is never evicted.
        var busy = 0
        var dataFileName: String
        /// Whether an entry of this cache holds the resource's lock; other resources (found on
        /// disk at start-up) are evicted only under their lock, taken fresh.
        var local = false
    }

    private struct Books {
        var accounts: [String: Account] = [:]
        var total: Int64 = 0
        var originBytes: Int64 = 0
        var evictions = 0
    }

    let directory: String
    let sizeLimit: Int64
    private let files: FileIO
    /// The wall clock, for LRU order.
    private let now: @Sendable () -> Date
    private let books = LockedBox(Books())
    /// Where evictions are told (``VideoCache/Configuration/log``), after unlocking.
    private let log: LogHandler?
    /// Told the key of each resource evicted to make room, after unlocking (the cache tells
    /// that resource's change subscribers).
    private let evicted: @Sendable (String) -> Void

    init(directory: String, sizeLimit: Int64, files: FileIO, now: @escaping @Sendable () -> Date, log: LogHandler? = nil,
         evicted: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.files = files
        self.now = now
        self.log = log
        self.evicted = evicted
    }

    /// Registers a resource found on disk or just created, with `busy` uses already open.
    func register(_ key: String, bytes: Int64, lastUse: Double, dataFileName: String, busy: Int = 0, local: Bool = false) {
        books.withLock { books in
            if let old = books.accounts[key] { books.total -= old.bytes }
            books.accounts[key] = Account(bytes: bytes, lastUse: lastUse, busy: busy, dataFileName: dataFileName, local: local)
            books.total += bytes
        }
    }

    /// Marks a resource in use and recently used; `false` (and nothing marked) if it is not on
    /// the books, having never been registered or having been evicted.
    @discardableResult
    func retain(_ key: String) -> Bool {
        books.withLock { books in
            guard books.accounts[key] != nil else { return false }
            books.accounts[key]?.busy += 1
            books.accounts[key]?.lastUse = now().timeIntervalSince1970
            return true
        }
    }

    /// Ends one use of a resource.
    func releaseUse(_ key: String) {
        books.withLock { $0.accounts[key]?.busy -= 1 }
    }

    /// A running download keeps its resource busy, like a reader.
    func downloadStarted(for key: String) { retain(key) }

    /// Ends a download's use of its resource.
    func downloadEnded(for key: String) { releaseUse(key) }

    /// The resources one ``admit(_:for:evictions:)`` evicted, for the caller to ``tell(_:)`` once it holds
    /// no lock of its own.
    struct Evictions {
        fileprivate var dropped: [(key: String, bytes: Int64)] = []
    }

    /// Reserves `count` more stored bytes for `key`, evicting idle resources in LRU order to make
    /// room; `false` when even that cannot make them fit (some may have been evicted all the
    /// same). Evicted keys are forgotten here and their files deleted; the cache drops the idle
    /// entry objects of evicted keys when it next makes one (``VideoCache``'s `openEntry`).
    ///
    /// The evictions are not told here but added to `evictions`, for ``tell(_:)`` after the
    /// caller's locks are released: the download that admits holds its entry's lock, and the
    /// handlers announce to change subscribers (whose announcements read entries under their
    /// locks) and call the app's log handler. Told from under the entry's lock, a subscriber
    /// of that entry announcing at the same moment deadlocked against it.
    func admit(_ count: Int64, for key: String, evictions: inout Evictions) -> Bool {
        guard count > 0 else { return true }
        var dropped: [(key: String, bytes: Int64)] = []
        let admitted = books.withLock { books in
            var skipped: Set<String> = []
            while books.total + count > sizeLimit {
                let idle = books.accounts.filter { $0.key != key && $0.value.busy == 0 && $0.value.bytes > 0 && !skipped.contains($0.key) }
                guard let victim = idle.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return false }
                if evict(victim.key, from: &books) {
                    dropped.append((victim.key, victim.value.bytes))
                } else {
                    skipped.insert(victim.key)
                }
            }
            books.total += count
            books.accounts[key]?.bytes += count
            return true
        }
        evictions.dropped += dropped
        return admitted
    }

    /// Tells the change subscribers and the log of each resource `evictions` holds. Call with
    /// no lock held: the handlers are the app's code and the cache's announcements.
    func tell(_ evictions: Evictions) {
        for drop in evictions.dropped {
            evicted(drop.key)
            log?(LogEvent(level: .notice, subsystem: VideoCache.subsystem, message: "resource evicted to stay under the size limit",
                          metadata: ["key": drop.key, "bytes": String(drop.bytes), "sizeLimit": String(sizeLimit)]))
        }
    }

    /// Returns `count` bytes of `key` to the budget (they were discarded).
    func release(_ count: Int64, for key: String) {
        books.withLock { books in
            books.total -= count
            books.accounts[key]?.bytes -= count
        }
    }

    /// Counts bytes received from the origin.
    func countOriginBytes(_ count: Int64) {
        books.withLock { $0.originBytes += count }
    }

    /// Deletes an idle resource's files and forgets it; `false` if it is busy.
    func evict(_ key: String) -> Bool {
        books.withLock { books in
            guard let account = books.accounts[key], account.busy == 0 else { return false }
            return evict(key, from: &books)
        }
    }

    /// Whether `key` has open readers or a running download.
    func isBusy(_ key: String) -> Bool {
        books.withLock { ($0.accounts[key]?.busy ?? 0) > 0 }
    }

    /// Whether `key` is on the books (registered and not evicted since).
    func isRegistered(_ key: String) -> Bool {
        books.withLock { $0.accounts[key] != nil }
    }

    /// The keys on the books.
    var keys: [String] { books.withLock { books in Array(books.accounts.keys) } }

    /// Totals for ``VideoCache/statistics``.
    var snapshot: (stored: Int64, resources: Int, originBytes: Int64, evictions: Int) {
        books.withLock { books in (books.total, books.accounts.count, books.originBytes, books.evictions) }
    }

    /// Deletes a resource's files; `false` (and nothing done) when it is not this cache's and
    /// its lock cannot be taken fresh: another process, or another cache here, is using it.
    private func evict(_ key: String, from books: inout Books) -> Bool {
        guard let account = books.accounts[key] else { return false }
        let lock = account.local ? nil : EntryLock.acquire(directory: directory, key: key)
        if !account.local {
            guard let lock, lock.isFresh, lock.mode == .exclusive else { return false }
        }
        defer { withExtendedLifetime(lock) {} }
        books.accounts[key] = nil
        books.total -= account.bytes
        books.evictions += 1
        // The index goes first: a kill in between leaves a data file with no index, which
        // start-up deletes, never an index describing bytes that are gone.
        files.remove(directory + "/" + EntryFiles.metadataName(of: key))
        files.remove(directory + "/" + account.dataFileName)
        return true
    }
}
