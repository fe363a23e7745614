import DouyinLogging
import DouyinSupport
import Foundation

/// One cached resource: its data file, its range index, and the origin downloads filling it.
///
/// Readers never get bytes from a download directly: a download writes each chunk into the
/// sparse file and records it in the index, then wakes the readers, which read from the file.
/// So a byte is fetched once however many readers want it, a slow reader buffers nothing in
/// memory, and the index is the only truth about what is on disk.
///
/// This file: making the entry, reading (deliver, end a read, wait). Downloads are in
/// `ResourceEntry+Download`, the index writes in `EntryIndexWriter`, every decision in
/// ``EntryState``.
final class ResourceEntry: @unchecked Sendable {
    // @unchecked Sendable: `box` is a LockedBox of a state that holds non-Sendable task
    // handles and continuations; `persistLock` orders the fsync-then-index writes; everything
    // else is immutable.

    /// What the entry's lock guards: the decisions, and the data file they are about. The file
    /// is kept beside the state, not in it, so the state stays a value that does no I/O; it is
    /// under the same lock because a chunk's write and its record must not be split by a drop.
    struct Guarded {
        var state: EntryState
        /// The data file, opened when the entry is made if it exists, else created at the first
        /// byte stored (so a failed fetch leaves no file behind).
        var file: SparseFile?
    }

    let key: String
    /// The URL the entry was made for; each read fetches from its own reader's URL, which can
    /// differ when a cache-key hook maps several URLs (re-signed ones) to one entry.
    let url: URL
    let dataFileName: String
    let dataPath: String
    let metadataPath: String
    /// This process's hold on the entry against other processes; `nil` when another holds it.
    private let lease: EntryLock?
    let origin: any VideoOrigin
    let ledger: StorageLedger
    let files: FileIO
    /// Where the held ranges are announced after every change (``VideoCache/changes(for:)``).
    let changes: ChangeHub
    /// The wall clock, for LRU order (``VideoCache/Configuration/now``).
    let now: @Sendable () -> Date
    /// Where downloads are told (``VideoCache/Configuration/log``).
    let log: LogHandler?
    private let box: LockedBox<Guarded>
    /// Held around a whole index write (fsync, then the index) and around the drops that must
    /// not interleave with one; it keeps what the index on disk says, so a write that would
    /// change nothing is skipped (no fsync, no rewrite). Not a box of `Void`: Thread Sanitizer
    /// reports a zero-sized value's access as racing with the lock's own load.
    let persistLock = LockedBox(IndexBooks())

    /// Makes the entry of `key`, taking its lock first; only under the lock are its index and
    /// data file read. Without the lock (another process holds it) the entry stores nothing and
    /// fetches what it reads; in a directory it cannot write it serves what the index holds and
    /// fetches the rest uncached.
    init(key: String, url: URL, directory: String, origin: any VideoOrigin, configuration: VideoCache.Configuration,
         ledger: StorageLedger, files: FileIO, changes: ChangeHub) {
        self.key = key
        self.url = url
        self.metadataPath = directory + "/" + EntryFiles.metadataName(of: key)
        self.origin = origin
        self.ledger = ledger
        self.files = files
        self.changes = changes
        self.now = configuration.now
        self.log = configuration.log
        let lease = EntryLock.acquire(directory: directory, key: key)
        self.lease = lease
        let metadata = lease == nil ? nil : ResourceMetadata.load(from: metadataPath, key: key, files: files)
        let dataFileName = metadata?.dataFileName ?? EntryFiles.dataFileName(key: key, pathExtension: url.pathExtension)
        self.dataFileName = dataFileName
        self.dataPath = directory + "/" + dataFileName
        var guarded = Guarded(state: EntryState(tuning: EntryState.Tuning(configuration),
                                                lastAccess: metadata?.lastAccess ?? configuration.now().timeIntervalSince1970))
        Self.open(&guarded, lease: lease, metadata: metadata, dataPath: dataPath, dataFileName: dataFileName, files: files)
        box = LockedBox(guarded)
        persistLock.withLock { $0.onDisk = metadata }
    }

    /// Opens the data file of an entry just made and takes in its index (both read under the
    /// entry's lock).
    private static func open(_ guarded: inout Guarded, lease: EntryLock?, metadata: ResourceMetadata?, dataPath: String,
                             dataFileName: String, files: FileIO) {
        guard let lease else {
            guarded.state.uncached = .entryInUseElsewhere
            return
        }
        let writable = lease.mode == .exclusive
        switch Result(catching: { () throws(SystemError) -> SparseFile in try SparseFile(path: dataPath, create: false, writable: writable, files: files) }) {
        case .success(let file):
            guarded.file = file
        case .failure(let error) where error.code == ENOENT:
            break  // No data file: nothing is held, whatever an index says.
        case .failure(let error) where writable && [EACCES, EROFS, EPERM].contains(error.code):
            guarded.file = try? SparseFile(path: dataPath, create: false, writable: false, files: files)
            guarded.state.uncached = .file(name: dataFileName, call: error.call, errno: error.code)
        case .failure(let error):
            // A symlink, directory or device planted under the entry's name: refused.
            guarded.state.uncached = .file(name: dataFileName, call: error.call, errno: error.code)
        }
        if !writable, guarded.state.uncached == nil { guarded.state.uncached = .readOnlyDirectory }
        if let file = guarded.file, let metadata { guarded.state.load(metadata, fileSize: file.size()) }
        // What the file is as its index was taken in: a change from here on is another's.
        guarded.state.seenIdentity = try? guarded.file?.identity()
    }

    /// Why this entry does not store what it fetches; `nil` while it does.
    var uncachedError: VideoCacheError? {
        locked { $0.state.uncached }
    }

    /// Whether this entry's lock belongs to this process and so its files may be written.
    var isStoring: Bool { lease?.mode == .exclusive }

    /// Runs `body` under the lock, then wakes the readers it made ready, after unlocking.
    func locked<Result>(_ body: (inout Guarded) throws -> Result) rethrows -> Result {
        var woken: [CheckedContinuation<Void, Never>] = []
        defer { for continuation in woken { continuation.resume() } }
        return try box.withLock { guarded in
            defer { woken = guarded.state.takeReadyWaiters() }
            return try body(&guarded)
        }
    }

    /// The byte ranges held now.
    var ranges: ByteRangeSet { locked { $0.state.ranges } }

    /// What the origin said, if it has answered yet.
    var info: VideoContentInfo? { locked { $0.state.info } }

    /// What the held ranges and the length are now, as ``VideoCache/changes(for:)`` tells them.
    var content: VideoCache.Content {
        locked { VideoCache.Content(ranges: $0.state.ranges, length: $0.state.info?.length) }
    }

    /// Tells the change stream's subscribers what is held now (after a store, drop or check).
    func announce() {
        changes.publish(for: key) { content }
    }

    // MARK: Reading

    /// Starts a read: the returned token names it for ``deliver(_:token:from:maxChunk:continuing:restart:to:)``
    /// and ``cancelRead(_:)``.
    func beginRead() -> Int {
        locked { $0.state.beginRead() }
    }

    /// Cancels a read at once: its downloads nobody else relies on stop, and the read throws
    /// `cancelled` (used when a reader is closed with reads still running).
    func cancelRead(_ token: Int) {
        endRead(token, cancelled: true)
    }

    /// Delivers `requested` (clipped to the resource's length) to `sink` in order, fetching
    /// what is missing; with no sink it only makes sure the bytes are cached (prefetch).
    ///
    /// Every byte handed to `sink` belongs to one version of the resource. When a fetch reveals
    /// a new version after bytes of the old one went out, the read throws `resourceChanged`,
    /// or, given `restart` (a caller that has not handed anything on yet), calls it and starts
    /// over from the first byte of the new version. A prefetch (no sink) holds itself to the
    /// same rule: it ends with all of `requested` held in one version, starting over when the
    /// version changes under it, never with the old version's bytes dropped behind it. At most
    /// ``maxRestarts`` times: an origin whose file changes at every request fails the read
    /// with `resourceChanged` rather than keep it looping. `continuing` is the epoch of bytes
    /// the caller already handed on before this read (the proxy's `sendfile` path), `nil` for
    /// none: the read then holds to it as to its own.
    func deliver(_ requested: Range<Int64>, token: Int, from source: URL, maxChunk: Int = .max, continuing: Int? = nil,
                 restart: (() -> Void)? = nil, to sink: ((Data) throws -> Void)?) async throws {
        var position = requested.lowerBound
        /// The version of the bytes handed to `sink` (or, for a prefetch, found held) so far;
        /// `nil` before the first.
        var handed: Int? = continuing
        var restarts = 0
        do {
            while true {
                if Task.isCancelled { throw VideoCacheError.cancelled }
                switch locked({ $0.state.plan(token, at: position, in: requested, maxChunk: maxChunk, handed: handed) }) {
                case .done:
                    endRead(token, cancelled: false)
                    return
                case .changed:
                    restarts += 1
                    guard sink == nil || restart != nil, restarts <= Self.maxRestarts else {
                        throw VideoCacheError.resourceChanged(url: source.absoluteString)
                    }
                    restart?()
                    handed = nil
                    position = requested.lowerBound
                case .read(let range, let generation, let epoch):
                    let end = range.lowerBound + min(Int64(range.count), Int64(maxChunk))
                    // A block first read since a restart is checked, from the very bytes read
                    // for the sink; a damaged one is dropped and the read plans again (fetching it).
                    guard let data = try readChecked(range.lowerBound..<end, generation: generation, needsBytes: sink != nil) else { continue }
                    if let sink {
                        // The file is read outside the lock: if the bytes were dropped meanwhile
                        // (remove, a changed resource), what was read may be short or a hole's
                        // zeros. Then nothing is delivered and the read plans again from here.
                        guard data.count == end - range.lowerBound, locked({ $0.state.generation == generation }) else { continue }
                        try sink(data)
                    }
                    handed = epoch
                    position = end
                case .wait(let version, let from, let until, let start):
                    if let start { startDownload(start, from: source) }
                    await waitForChange(after: version, bytes: from..<until)
                case .direct(let range):
                    let (data, epoch) = try await fetchDirect(range, from: source)
                    // A direct fetch that found a new version dropped the old one's bytes (and
                    // bumped the epoch); the next plan then says `changed` before any goes out.
                    if let handed, handed != epoch { continue }
                    if data.isEmpty {
                        endRead(token, cancelled: false)
                        return
                    }
                    try sink?(data)
                    handed = epoch
                    position += Int64(data.count)
                case .fail(let error):
                    throw error
                }
            }
        } catch {
            let failure = Self.describe(error)
            endRead(token, cancelled: failure == .cancelled)
            throw failure
        }
    }

    /// How many times one read starts over for a new version before it gives up.
    static let maxRestarts = 3

    /// Ends a read; the downloads only it relied on are cancelled when it was, after unlocking
    /// (cancelling runs their cancellation handlers, which must not find the lock held).
    private func endRead(_ token: Int, cancelled: Bool) {
        let stopped = locked { $0.state.endRead(token, cancelled: cancelled) }
        for task in stopped { task.cancel() }
    }

    func readFile(_ range: Range<Int64>, generation: Int) throws -> Data {
        do {
            // No file means the bytes were dropped since the plan: read as none held.
            let data = try locked({ $0.file })?.read(at: range.lowerBound, count: range.count) ?? Data()
            if data.count < range.count {
                // The file lost bytes the index holds (truncated behind our back): forget them.
                locked { $0.state.fileEndedEarly(at: range.lowerBound + Int64(data.count), generation: generation) }
            }
            return data
        } catch {
            throw VideoCacheError.file(name: dataFileName, call: error.call, errno: error.code)
        }
    }

    private func waitForChange(after version: Int, bytes wanted: Range<Int64>) async {
        let token = locked { $0.state.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                locked { $0.state.park(continuation, as: token, after: version, wanting: wanted, cancelled: Task.isCancelled) }?.resume()
            }
        } onCancel: {
            locked { $0.state.unpark(token) }?.resume()
        }
    }

    /// Notes a read now, for LRU order.
    func touch() {
        let now = now().timeIntervalSince1970
        locked { $0.state.lastAccess = now }
    }

    /// Drops every stored byte (``VideoCache/remove(for:)`` while readers are open).
    func discardAll() {
        persistLock.withLock { books in
            let (dropped, stopped) = locked { guarded in
                let outcome = guarded.state.dropAll()
                try? guarded.file?.truncate()  // before unlocking, as in adopt
                guarded.state.wroteFile(try? guarded.file?.identity())
                return outcome
            }
            for task in stopped { task.cancel() }
            ledger.release(dropped, for: key)
            saveMetadata(&books)
        }
        announce()
    }

    /// Cancels every download (the entry is being evicted or removed).
    func cancelAll() {
        for task in locked({ $0.state.stopAllDownloads() }) { task.cancel() }
    }

    /// The indices in `chunk` (which starts at resource offset `offset`) of the bytes `range`;
    /// relative to `startIndex`, as an origin may hand over a slice.
    static func indices(of range: Range<Int64>, in chunk: Data, at offset: Int64) -> Range<Int> {
        (chunk.startIndex + Int(range.lowerBound - offset))..<(chunk.startIndex + Int(range.upperBound - offset))
    }

    /// Any error of a read or a download as the module's error: a cancelled task's
    /// `CancellationError` is `cancelled`, a transport's failure `network` with its `URLError`.
    static func describe(_ error: any Error) -> VideoCacheError {
        switch error {
        case let error as VideoCacheError: error
        case is CancellationError: .cancelled
        case let error as URLError: .network(error)
        case is OriginStoppedEarly: .network(URLError(.networkConnectionLost))
        default: .network(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"]))
        }
    }
}
