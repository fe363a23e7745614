import Foundation

/// One cached resource's bookkeeping, and every decision taken on it, as a value.
///
/// Nothing here does I/O, takes a lock, or starts or cancels a task: each decision changes the
/// value and returns what the caller has to do — start a download, cancel tasks, give budget
/// back, write a chunk. ``ResourceEntry`` keeps one under its lock and performs those actions
/// after unlocking, except the file operations that must stay ordered with the chunk writes
/// (a write, the truncate of a new version), which it performs before unlocking.
///
/// The readers' continuations and the downloads' task handles are carried as opaque values:
/// the state decides who is woken or cancelled, the entry does the waking and cancelling. The
/// data file is not in here: the entry keeps it beside the state, under the same lock.
///
/// Split by concern: reads and waiting (`EntryState+Reads`), downloads and what answers mean
/// (`EntryState+Downloads`), the index and block checksums (`EntryState+Index`).
struct EntryState {
    /// The byte thresholds the decisions use, from ``VideoCache/Configuration``.
    struct Tuning: Sendable {
        var readOnThreshold: Int64
        var coalescingGap: Int64
        var persistInterval: Int64
        var persistSpacing: Duration

        init(_ configuration: VideoCache.Configuration) {
            readOnThreshold = configuration.readOnThreshold
            coalescingGap = configuration.coalescingGap
            persistInterval = configuration.persistInterval
            persistSpacing = configuration.persistSpacing
        }
    }

    /// An origin request in flight, filling `[position, end)`. `end` can shrink when a reader
    /// far ahead starts its own request there.
    struct Download {
        /// Where its request started (moved to 0 when a whole body of a new version restocks).
        var start: Int64
        var end: Int64
        var position: Int64
        /// The index generation it writes for; a changed resource starts a new one.
        var generation: Int
        /// Its task, once the entry has started it (`nil` in between).
        var task: Task<Void, Never>?
    }

    /// A read asleep until `wanted` is held or ``version`` moves past `version`.
    struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        let wanted: Range<Int64>
        let version: Int
    }

    /// What a reader does next.
    enum Step: Equatable {
        case done
        /// The resource changed after this read handed out bytes of the old version.
        case changed
        /// Read these held bytes from the file; they belong to index generation `generation` and
        /// to version `epoch` of the resource.
        case read(Range<Int64>, generation: Int, epoch: Int)
        /// Sleep until bytes `[position, until)` are held or `version` moves on; first start
        /// download `start` when it is given (the read relies on it already).
        case wait(version: Int, position: Int64, until: Int64, start: Int?)
        /// Fetch these bytes from the origin without storing them (caching is off).
        case direct(Range<Int64>)
        case fail(VideoCacheError)
    }

    /// What a response's description of the resource means for the stored bytes.
    enum Adoption: Equatable {
        /// The answer belongs to a download whose bytes were dropped meanwhile: ignored.
        case stale
        /// The same version (details merged in); the resource's epoch.
        case same(epoch: Int)
        /// A new version: every stored byte was dropped (`droppedBytes` go back to the budget),
        /// the data file must be emptied before the lock is released, and `cancel` stopped.
        case newVersion(epoch: Int, droppedBytes: Int64, cancel: [Task<Void, Never>])
    }

    /// What to do with a body chunk of a download.
    enum ChunkPlan: Equatable {
        /// The download is no longer listed or belongs to dropped bytes: write nothing, stop.
        case stale
        /// Nothing of the chunk is wanted (before the download's position or past its end).
        case skip
        /// Write `useful` (`newBytes` of it not held yet, to be admitted to the budget first).
        case write(useful: Range<Int64>, newBytes: Int64)
    }

    let tuning: Tuning
    var info: VideoContentInfo? { didSet { indexVersion &+= 1 } }
    /// What the origin said before ``dropAll()`` (a remove while readers are open) forgot it,
    /// until the next answer: a read that handed out bytes before the drop compares that answer
    /// with this, so a new file is still a new version to it. Never used to clip or to ask.
    var removedInfo: VideoContentInfo?
    var ranges = ByteRangeSet() { didSet { indexVersion &+= 1 } }
    /// Bumped on every change of what an index says but the access time (``info``,
    /// ``ranges``, ``checksums``): equal to the version an index was found to match, nothing
    /// it says but the access time has changed since, and no comparison is needed.
    private(set) var indexVersion = 0
    /// Bumped whenever stored bytes are dropped (a new version, a remove, a damaged block).
    var generation = 0
    /// Bumped only when the origin reveals a new version (validator or length): a read that
    /// handed out bytes of one epoch must never hand out bytes of another.
    var epoch = 0
    /// CRC-32C of each block's held bytes, as of the last index write (blocks in `dirty`
    /// have changed since and are summed again at the next one).
    var checksums: [Int64: UInt32] = [:] { didSet { indexVersion &+= 1 } }
    var dirty: Set<Int64> = []
    /// Blocks an index write is summing now: out of ``dirty`` but their new sums not in
    /// ``checksums`` yet, so nothing can check them until ``summed(_:)`` or ``summingFailed(_:)``.
    var summing: Set<Int64> = []
    /// Blocks read from an index made before this entry, with the parts it said were held:
    /// those parts are checked against the block's checksum the first time they are read.
    var unverified: [Int64: [Range<Int64>]] = [:]
    /// Blocks checked under the data file's identity of then (``EntryState+Trust``).
    var trust = FileTrust()
    /// The data file's identity as this entry last saw or left it; `nil` before the first look.
    var seenIdentity: FileIdentity?
    var downloads: [Int: Download] = [:]
    /// The reads in progress, each with the downloads it relies on.
    var reads: [Int: Set<Int>] = [:]
    /// Reads relying on each download (kept after it ends, until they let go).
    var demand: [Int: Int] = [:]
    /// Why a relied-on download failed, for the readers still waiting on it.
    var failures: [Int: VideoCacheError] = [:]
    var nextID = 0
    /// Bumped on every change a waiting reader might care about.
    var version = 0
    var waiters: [Int: Waiter] = [:]
    /// Set once the bytes can no longer be stored (another process holds the entry, a
    /// read-only directory, disk failure, over budget): readers fetch what is missing directly.
    var uncached: VideoCacheError?
    /// Seconds since 1970 of the last read, for LRU order.
    var lastAccess: Double
    /// Bytes written since the last index write.
    var unpersisted: Int64 = 0
    var persistPending = false
    /// When the last index write during a download was asked for; `nil` before the first.
    var lastPersistRequest: ContinuousClock.Instant?

    init(tuning: Tuning, lastAccess: Double) {
        self.tuning = tuning
        self.lastAccess = lastAccess
    }

    // MARK: Loading

    /// Takes in an index read under the entry's lock for a data file of `fileSize` bytes:
    /// what lies past the file's end is not held, and a block without a checksum is not
    /// trusted; every other block is held but checked at its first read.
    mutating func load(_ metadata: ResourceMetadata, fileSize: Int64) {
        info = metadata.info
        ranges = metadata.ranges(inFileOf: fileSize)
        checksums = metadata.checksums
        for block in Self.blocks(of: ranges) {
            if metadata.checksums[block] == nil {
                ranges.remove(Self.blockRange(block))
            } else {
                unverified[block] = ranges.held(in: Self.blockRange(block))
            }
        }
    }

    /// The blocks `range` touches.
    static func blocks(of range: Range<Int64>) -> ClosedRange<Int64> {
        (range.lowerBound / ResourceMetadata.blockSize)...((range.upperBound - 1) / ResourceMetadata.blockSize)
    }

    /// The blocks any held byte of `ranges` lies in.
    static func blocks(of ranges: ByteRangeSet) -> [Int64] {
        var result: [Int64] = []
        for range in ranges.ranges where !range.isEmpty {
            for block in blocks(of: range) where result.last != block { result.append(block) }
        }
        return result
    }

    /// The bytes of block `block`.
    static func blockRange(_ block: Int64) -> Range<Int64> {
        (block * ResourceMetadata.blockSize)..<((block + 1) * ResourceMetadata.blockSize)
    }
}
