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
/// the state decides who is woken or cancelled, the entry does the waking and cancelling.
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

    /// A read asleep until `wanted` is held or something else changes.
    struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        let wanted: Range<Int64>
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
    var info: VideoContentInfo?
    var ranges = ByteRangeSet()
    /// Bumped whenever stored bytes are dropped (a new version, a remove, a damaged block).
    var generation = 0
    /// Bumped only when the origin reveals a new version (validator or length): a read that
    /// handed out bytes of one epoch must never hand out bytes of another.
    var epoch = 0
    /// The data file, opened when the entry is made if it exists, else created at the first
    /// byte stored (so a failed fetch leaves no file behind). Used only by the entry.
    var file: SparseFile?
    /// CRC-32C of each block's held bytes, as of the last index write (blocks in `dirty`
    /// have changed since and are summed again at the next one).
    var checksums: [Int64: UInt32] = [:]
    var dirty: Set<Int64> = []
    /// Blocks read from an index made before this entry, with the parts it said were held:
    /// those parts are checked against the block's checksum the first time they are read.
    var unverified: [Int64: [Range<Int64>]] = [:]
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
    /// Readers to wake once the lock is released: resuming a task while holding the lock
    /// deadlocks against that task's cancellation handler, which takes the lock.
    var wakeups: [CheckedContinuation<Void, Never>] = []

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

    // MARK: Reads

    /// A new id for a read, a waiter or a download.
    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }

    /// Starts a read; its token names it from then on.
    mutating func beginRead() -> Int {
        let token = makeID()
        reads[token] = []
        return token
    }

    /// Decides the next step for the read `token` at `position` of `requested`, `handed`
    /// being the epoch of the bytes it handed out so far (`nil`: none yet). A step that starts
    /// a download lists it here first, so other readers see and share it at once.
    mutating func plan(_ token: Int, at position: Int64, in requested: Range<Int64>, maxChunk: Int, handed: Int?) -> Step {
        guard let relied = reads[token] else { return .fail(.cancelled) }
        // Checked first, before `done`: a new version may also be shorter than the old.
        if let handed, handed != epoch { return .changed }
        var upper = requested.upperBound
        if let length = info?.length { upper = min(upper, length) }
        guard position < upper else { return .done }
        if let held = ranges.heldRunEnd(from: position) {
            return .read(position..<min(held, upper), generation: generation, epoch: epoch)
        }
        if uncached != nil {
            return .direct(ranges.missing(in: position..<upper)[0])
        }
        if let failed = relied.compactMap({ failures[$0] }).first {
            return .fail(failed)
        }
        let until = Self.wakeEnd(position, upper, maxChunk)
        if let (id, download) = downloads.first(where: { $0.value.position <= position && position < $0.value.end }) {
            if position - download.position <= tuning.readOnThreshold {
                rely(token, on: id)
                return .wait(version: version, position: position, until: until, start: nil)
            }
            // Too far ahead to wait for: that download stops here and a new one starts.
            downloads[id]?.end = position
        }
        let id = listDownload(at: position, upTo: upper)
        rely(token, on: id)
        return .wait(version: version, position: position, until: until, start: id)
    }

    /// How far past `position` a waiting read wants bytes before it is woken: any byte for a
    /// stream (a player starts on what has arrived), the next 1 MB for a collecting read, so it
    /// copies held bytes out while the download goes on (a cold 32 MB read took 1.35–1.85× a
    /// plain download when woken once at the end, 0.87–1.38× woken every 1 MB).
    /// Written as a distance so a read near `Int64.max` cannot overflow.
    static func wakeEnd(_ position: Int64, _ upper: Int64, _ maxChunk: Int) -> Int64 {
        guard maxChunk == .max else { return position + 1 }  // position < upper: no overflow
        return upper - position <= 1 << 20 ? upper : position + 1 << 20
    }

    private mutating func rely(_ token: Int, on id: Int) {
        if reads[token]?.insert(id).inserted == true { demand[id, default: 0] += 1 }
    }

    /// Ends a read and lets go of the downloads it relied on; returns the tasks to cancel: a
    /// cancelled read's downloads that nobody else relies on. Ending a read twice does nothing.
    mutating func endRead(_ token: Int, cancelled: Bool) -> [Task<Void, Never>] {
        guard let relied = reads.removeValue(forKey: token) else { return [] }
        var stopped: [Task<Void, Never>] = []
        for id in relied {
            let remaining = (demand[id] ?? 1) - 1
            guard remaining <= 0 else {
                demand[id] = remaining
                continue
            }
            demand[id] = nil
            failures[id] = nil
            if cancelled, let download = downloads.removeValue(forKey: id), let task = download.task {
                stopped.append(task)
            }
        }
        if cancelled { signal() }
        return stopped
    }

    /// Whether all of `wanted` is held.
    func isHeld(_ wanted: Range<Int64>) -> Bool {
        (ranges.heldRunEnd(from: wanted.lowerBound) ?? wanted.lowerBound) >= wanted.upperBound
    }

    /// Puts a reader to sleep until `wanted` is held or something changes after `version`;
    /// it is woken at once (through ``wakeups``) when that already happened or `cancelled`.
    mutating func park(_ continuation: CheckedContinuation<Void, Never>, as token: Int, after version: Int,
                       wanting wanted: Range<Int64>, cancelled: Bool) {
        if self.version != version || isHeld(wanted) || cancelled {
            wakeups.append(continuation)
        } else {
            waiters[token] = Waiter(continuation: continuation, wanted: wanted)
        }
    }

    /// Takes a sleeping reader out (its task was cancelled); the caller resumes it.
    mutating func unpark(_ token: Int) -> CheckedContinuation<Void, Never>? {
        waiters.removeValue(forKey: token)?.continuation
    }

    /// Records a change every reader must look at (a download ended, bytes were dropped,
    /// caching stopped) and wakes them all once the lock is released.
    mutating func signal() {
        version += 1
        wakeups.append(contentsOf: waiters.values.lazy.map(\.continuation))
        waiters.removeAll(keepingCapacity: true)
    }

    /// Wakes the readers whose wanted bytes are now all held, once the lock is released.
    private mutating func signalProgress() {
        for (token, waiter) in waiters where isHeld(waiter.wanted) {
            waiters[token] = nil
            wakeups.append(waiter.continuation)
        }
    }

    /// The file came up short reading `[.., cut)` of generation `generation` (truncated behind
    /// the entry's back): its bytes from `cut` on are no longer held, unless the index has
    /// moved on to a new generation whose bytes these are not.
    mutating func fileEndedEarly(at cut: Int64, generation: Int) {
        guard self.generation == generation else { return }
        ranges.removeAll(from: cut)
        dirty.formUnion(checksums.keys.filter { $0 >= cut / ResourceMetadata.blockSize })
    }

    // MARK: Downloads

    /// Lists a download from `position` (missing, not covered) through the gap and any small
    /// held gaps after it, stopping where the next download is.
    private mutating func listDownload(at position: Int64, upTo upper: Int64) -> Int {
        let gaps = ranges.missing(in: position..<upper)
        var end = gaps[0].upperBound
        for gap in gaps.dropFirst() {
            guard gap.lowerBound - end < tuning.coalescingGap else { break }
            end = gap.upperBound
        }
        for download in downloads.values where download.position > position {
            end = min(end, download.position)
        }
        let id = makeID()
        downloads[id] = Download(start: position, end: end, position: position, generation: generation)
        return id
    }

    /// Hands a started download its task; `false` when the download ended before it got it
    /// (cancelled by its only reader, or dropped), and the task should be cancelled.
    mutating func attach(_ task: Task<Void, Never>, to id: Int) -> Bool {
        guard downloads[id] != nil else { return false }
        downloads[id]?.task = task
        return true
    }

    /// The bytes download `id` asks the origin for, with the `If-Range` validator; `nil` when
    /// it ended before it began.
    func request(of id: Int) -> (range: Range<Int64>, ifRange: String?)? {
        guard let download = downloads[id] else { return nil }
        return (download.start..<download.end, info?.ifRangeValidator)
    }

    /// Takes in what a response said about the resource. `id` names the download that got it,
    /// `nil` for a direct (uncached) fetch. A new version drops every stored byte of the old.
    ///
    /// `wholeBody` says the answer is a 200, its body the resource from byte 0. When that 200
    /// answered a request carrying `If-Range: ifRange`, the origin said that validator no
    /// longer names its representation: a new version, unless the 200 itself carries the very
    /// validator sent (an origin that ignores Range answers every request whole, with the same
    /// validators) or the entry moved on meanwhile (another answer already adopted the new
    /// version). A new version found by a whole body restocks from its first byte: the
    /// answering download stores the body from 0, so a read starting over shares it instead
    /// of asking again (an origin that ignores Range would answer that request whole too).
    mutating func adopt(_ newInfo: VideoContentInfo, for id: Int?, wholeBody: Bool = false, ifRange: String? = nil) -> Adoption {
        if let id {
            guard let download = downloads[id], download.generation == generation else { return .stale }
        }
        let validatorFailed = wholeBody && ifRange != nil && ifRange == info?.ifRangeValidator && newInfo.ifRangeValidator != ifRange
        // A length short of bytes held (the old length unknown) cannot describe them either.
        let shorterThanHeld = newInfo.length.map { $0 < (ranges.ranges.last?.upperBound ?? 0) } ?? false
        guard let old = info, validatorFailed || shorterThanHeld || old.differs(from: newInfo) else {
            var merged = newInfo
            merged.length = newInfo.length ?? info?.length
            merged.mimeType = newInfo.mimeType ?? info?.mimeType
            merged.etag = newInfo.etag ?? info?.etag
            merged.lastModified = newInfo.lastModified ?? info?.lastModified
            info = merged
            return .same(epoch: epoch)
        }
        let dropped = ranges.byteCount
        generation += 1
        epoch += 1
        forgetStoredBytes()
        info = newInfo
        var stopped: [Task<Void, Never>] = []
        for (other, download) in downloads where other != id {
            if let task = download.task { stopped.append(task) }
            downloads[other] = nil
        }
        if let id {
            downloads[id]?.generation = generation
            if wholeBody {
                downloads[id]?.start = 0
                downloads[id]?.position = 0
            }
        }
        signal()
        return .newVersion(epoch: epoch, droppedBytes: dropped, cancel: stopped)
    }

    /// The origin answered 416 to a direct fetch without saying the length: the resource ends
    /// at `position` unless already known. Returns the epoch.
    mutating func assumeLength(_ position: Int64) -> Int {
        info = info ?? VideoContentInfo(length: position)
        return epoch
    }

    /// Decides what of a body chunk covering `chunk` (resource offsets) download `id` writes.
    func planChunk(_ chunk: Range<Int64>, for id: Int) -> ChunkPlan {
        // Callbacks can arrive after a cancel: a download no longer listed writes nothing.
        guard let download = downloads[id], download.generation == generation else { return .stale }
        let lower = max(chunk.lowerBound, download.position)
        let upper = min(chunk.upperBound, download.end)
        guard lower < upper else { return .skip }
        let useful = lower..<upper
        return .write(useful: useful, newBytes: ranges.missing(in: useful).reduce(Int64(0)) { $0 + Int64($1.count) })
    }

    /// Records that `useful` (planned by ``planChunk(_:for:)``) is on disk, and wakes the
    /// readers it completes.
    mutating func stored(_ useful: Range<Int64>, for id: Int) {
        ranges.insert(useful)
        dirty.formUnion(Self.blocks(of: useful))
        downloads[id]?.position = useful.upperBound
        unpersisted += Int64(useful.count)
        signalProgress()
    }

    /// Whether download `id` wants more bytes (it has not reached its end and is still listed).
    func wantsMore(_ id: Int) -> Bool {
        guard let download = downloads[id] else { return false }
        return download.position < download.end
    }

    /// Whether the index should be written at `now`: enough bytes are written since the last
    /// write, and the last request is at least ``Tuning/persistSpacing`` ago.
    func shouldPersist(at now: ContinuousClock.Instant) -> Bool {
        guard unpersisted >= tuning.persistInterval else { return false }
        guard let last = lastPersistRequest else { return true }
        return now - last >= tuning.persistSpacing
    }

    /// A request at `now` to write the index: `true` when the caller should start one, `false`
    /// when one is pending already (it will include these bytes).
    mutating func requestPersist(at now: ContinuousClock.Instant) -> Bool {
        lastPersistRequest = now
        defer { persistPending = true }
        return !persistPending
    }

    /// Download `id`'s body ended short: received and expected byte counts, or `nil` when it
    /// got everything it was for (or is no longer listed). `expectedEnd` is where the body said
    /// it would end.
    func shortfall(of id: Int, expectedEnd: Int64) -> (expected: Int64, received: Int64)? {
        guard let download = downloads[id] else { return nil }
        let target = min(download.end, expectedEnd)
        guard download.position < target else { return nil }
        return (target - download.start, download.position - download.start)
    }

    /// Download `id` ended; its failure (if any) is kept for the readers relying on it.
    mutating func downloadEnded(_ id: Int, failure: VideoCacheError?) {
        guard downloads.removeValue(forKey: id) != nil else { return }
        if let failure, demand[id] != nil { failures[id] = failure }
        signal()
    }

    /// Caching stops for good (disk failure, over budget); readers go on uncached.
    mutating func stopCaching(_ reason: VideoCacheError) {
        uncached = reason
        signal()
    }

    /// Drops every stored byte (a remove while readers are open): returns the bytes dropped and
    /// the tasks to cancel; the caller empties the data file before unlocking.
    mutating func dropAll() -> (droppedBytes: Int64, cancel: [Task<Void, Never>]) {
        let dropped = ranges.byteCount
        generation += 1
        forgetStoredBytes()
        let stopped = stopAllDownloads()
        return (dropped, stopped)
    }

    /// Ends every download (eviction): returns their tasks to cancel.
    mutating func stopAllDownloads() -> [Task<Void, Never>] {
        let stopped = downloads.values.compactMap(\.task)
        downloads.removeAll()
        signal()
        return stopped
    }

    private mutating func forgetStoredBytes() {
        ranges = ByteRangeSet()
        checksums = [:]
        dirty = []
        unverified = [:]
    }

    // MARK: Index and checksums

    /// The index to write now and the changed blocks to sum for it; the caller sums them from
    /// the file, then hands the sums back through ``summed(_:)``. A block not yet verified
    /// keeps its old checksum (summing it now could bless damaged bytes); it is summed after
    /// its check.
    mutating func indexSnapshot(url: String, dataFileName: String) -> (ResourceMetadata, blocks: Set<Int64>) {
        unpersisted = 0
        let summed = dirty.filter { unverified[$0] == nil }
        dirty.subtract(summed)
        let snapshot = ResourceMetadata(url: url, dataFileName: dataFileName, info: info, ranges: ranges,
                                        lastAccess: lastAccess, checksums: checksums)
        return (snapshot, summed)
    }

    /// Summing `blocks` failed: they are summed again at the next index write.
    mutating func summingFailed(_ blocks: Set<Int64>) {
        dirty.formUnion(blocks)
    }

    /// The sums of the blocks an index write summed.
    mutating func summed(_ sums: [Int64: UInt32?]) {
        for (block, sum) in sums { checksums[block] = sum }
    }

    /// The blocks of `range` not checked yet since the index was loaded, each with its expected
    /// checksum and the parts that were held.
    func uncheckedBlocks(in range: Range<Int64>) -> [(block: Int64, expected: UInt32, parts: [Range<Int64>])] {
        Self.blocks(of: range).compactMap { block in
            guard let parts = unverified[block] else { return nil }
            return (block, checksums[block] ?? 0, parts)
        }
    }

    /// A block's check ended. A damaged block's bytes are dropped (to be fetched again); returns
    /// how many, or `nil` when the block is accepted (intact, or checked already, or of an older
    /// generation).
    mutating func blockChecked(_ block: Int64, intact: Bool, generation: Int) -> Int64? {
        guard self.generation == generation, unverified.removeValue(forKey: block) != nil, !intact else { return nil }
        let span = Self.blockRange(block)
        let dropped = ranges.held(in: span).reduce(Int64(0)) { $0 + Int64($1.count) }
        ranges.remove(span)
        checksums[block] = nil
        dirty.insert(block)
        signal()
        return dropped
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
