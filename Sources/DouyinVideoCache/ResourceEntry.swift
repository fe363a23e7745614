import DouyinSupport
import Foundation

/// One cached resource: its data file, its range index, and the origin downloads filling it.
///
/// Readers never get bytes from a download directly: a download writes each chunk into the
/// sparse file and records it in the index, then wakes the readers, which read from the file.
/// So a byte is fetched once however many readers want it, a slow reader buffers nothing in
/// memory, and the index is the only truth about what is on disk.
final class ResourceEntry: @unchecked Sendable {
    // @unchecked Sendable: `box` is a LockedBox of a state that holds non-Sendable task
    // handles and continuations; `persistLock` orders the fsync-then-index writes; everything
    // else is immutable.

    let key: String
    /// The URL the entry was made for; each read fetches from its own reader's URL, which can
    /// differ when a cache-key hook maps several URLs (re-signed ones) to one entry.
    let url: URL
    let dataFileName: String
    private let dataPath: String
    private let metadataPath: String
    /// This process's hold on the entry against other processes; `nil` when another holds it.
    private let lease: EntryLock?
    private let origin: any VideoOrigin
    private let ledger: StorageLedger
    private let files: FileIO
    private let box: LockedBox<EntryState>
    /// Held around a whole index write (fsync, then the index) and around the drops that must
    /// not interleave with one; it keeps what the index on disk says, so a write that would
    /// change nothing is skipped (no fsync, no rewrite). Not a box of `Void`: Thread Sanitizer
    /// reports a zero-sized value's access as racing with the lock's own load.
    private let persistLock = LockedBox(IndexBooks())

    /// What the index file says, as of the last write or load, and how many writes were made.
    private struct IndexBooks {
        var onDisk: ResourceMetadata?
        var writes = 0
    }

    /// Makes the entry of `key`, taking its lock first; only under the lock are its index and
    /// data file read. Without the lock (another process holds it) the entry stores nothing and
    /// fetches what it reads; in a directory it cannot write it serves what the index holds and
    /// fetches the rest uncached.
    init(key: String, url: URL, directory: String,
         origin: any VideoOrigin, configuration: VideoCache.Configuration, ledger: StorageLedger, files: FileIO) {
        self.key = key
        self.url = url
        self.metadataPath = directory + "/" + EntryFiles.metadataName(of: key)
        self.origin = origin
        self.ledger = ledger
        self.files = files
        let lease = EntryLock.acquire(directory: directory, key: key)
        self.lease = lease
        let metadata = lease == nil ? nil : ResourceMetadata.load(from: metadataPath, key: key, files: files)
        let dataFileName = metadata?.dataFileName ?? EntryFiles.dataFileName(key: key, pathExtension: url.pathExtension)
        self.dataFileName = dataFileName
        self.dataPath = directory + "/" + dataFileName
        var state = EntryState(tuning: EntryState.Tuning(configuration), lastAccess: metadata?.lastAccess ?? Date().timeIntervalSince1970)
        Self.open(&state, lease: lease, metadata: metadata, dataPath: dataPath, dataFileName: dataFileName, files: files)
        box = LockedBox(state)
        persistLock.withLock { $0.onDisk = metadata }
    }

    /// Opens the data file of an entry just made and takes in its index (both read under the
    /// entry's lock).
    private static func open(_ state: inout EntryState, lease: EntryLock?, metadata: ResourceMetadata?, dataPath: String, dataFileName: String, files: FileIO) {
        guard let lease else {
            state.uncached = .entryInUseElsewhere
            return
        }
        let writable = lease.mode == .exclusive
        switch Result(catching: { () throws(SystemError) -> SparseFile in try SparseFile(path: dataPath, create: false, writable: writable, files: files) }) {
        case .success(let file):
            state.file = file
        case .failure(let error) where error.code == ENOENT:
            break  // No data file: nothing is held, whatever an index says.
        case .failure(let error) where writable && [EACCES, EROFS, EPERM].contains(error.code):
            state.file = try? SparseFile(path: dataPath, create: false, writable: false, files: files)
            state.uncached = .file(name: dataFileName, call: error.call, errno: error.code)
        case .failure(let error):
            // A symlink, directory or device planted under the entry's name: refused.
            state.uncached = .file(name: dataFileName, call: error.call, errno: error.code)
        }
        if !writable, state.uncached == nil { state.uncached = .disk("the cache directory is read-only") }
        if let file = state.file, let metadata { state.load(metadata, fileSize: file.size()) }
    }

    /// Why this entry does not store what it fetches; `nil` while it does.
    var uncachedError: VideoCacheError? {
        locked { state in state.uncached }
    }

    /// Whether this entry's lock belongs to this process and so its files may be written.
    var isStoring: Bool { lease?.mode == .exclusive }

    /// Runs `body` under the lock, then wakes the readers it made ready, after unlocking.
    private func locked<Result>(_ body: (inout EntryState) throws -> Result) rethrows -> Result {
        var woken: [CheckedContinuation<Void, Never>] = []
        defer { for continuation in woken { continuation.resume() } }
        return try box.withLock { state in
            defer {
                woken = state.wakeups
                state.wakeups.removeAll()
            }
            return try body(&state)
        }
    }

    /// The byte ranges held now.
    var ranges: ByteRangeSet { locked { state in state.ranges } }

    /// What the origin said, if it has answered yet.
    var info: VideoContentInfo? { locked { state in state.info } }

    // MARK: Reading

    /// Starts a read: the returned token names it for ``deliver(_:token:from:maxChunk:restart:to:)``
    /// and ``cancelRead(_:)``.
    func beginRead() -> Int {
        locked { state in state.beginRead() }
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
    /// with `resourceChanged` rather than keep it looping.
    func deliver(_ requested: Range<Int64>, token: Int, from source: URL, maxChunk: Int = .max,
                 restart: (() -> Void)? = nil, to sink: ((Data) throws -> Void)?) async throws {
        var position = requested.lowerBound
        /// The version of the bytes handed to `sink` (or, for a prefetch, found held) so far;
        /// `nil` before the first.
        var handed: Int?
        var restarts = 0
        do {
            while true {
                if Task.isCancelled { throw VideoCacheError.cancelled }
                switch locked({ state in state.plan(token, at: position, in: requested, maxChunk: maxChunk, handed: handed) }) {
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
                    // A block first read since a restart is checked; a damaged one is dropped
                    // and the read plans again (fetching it).
                    guard verify(range.lowerBound..<end, generation: generation) else { continue }
                    if let sink {
                        let data = try readFile(range.lowerBound..<end, generation: generation)
                        // The file is read outside the lock: if the bytes were dropped meanwhile
                        // (remove, a changed resource), what was read may be short or a hole's
                        // zeros. Then nothing is delivered and the read plans again from here.
                        guard data.count == end - range.lowerBound, locked({ state in state.generation == generation }) else { continue }
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
                    if !data.isEmpty {
                        try sink?(data)
                        handed = epoch
                    }
                    if data.isEmpty {
                        endRead(token, cancelled: false)
                        return
                    }
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
        let stopped = locked { state in state.endRead(token, cancelled: cancelled) }
        for task in stopped { task.cancel() }
    }

    private func readFile(_ range: Range<Int64>, generation: Int) throws -> Data {
        do {
            // No file means the bytes were dropped since the plan: read as none held.
            let data = try locked({ state in state.file })?.read(at: range.lowerBound, count: range.count) ?? Data()
            if data.count < range.count {
                // The file lost bytes the index holds (truncated behind our back): forget them.
                locked { state in state.fileEndedEarly(at: range.lowerBound + Int64(data.count), generation: generation) }
            }
            return data
        } catch {
            throw VideoCacheError.file(name: dataFileName, call: error.call, errno: error.code)
        }
    }

    private func waitForChange(after version: Int, bytes wanted: Range<Int64>) async {
        let token = locked { state in state.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                locked { state in state.park(continuation, as: token, after: version, wanting: wanted, cancelled: Task.isCancelled) }
            }
        } onCancel: {
            locked { state in state.unpark(token) }?.resume()
        }
    }

    // MARK: Downloading

    /// Starts the download the state listed as `id`; when it ended before its task exists
    /// (its only reader was cancelled), the task is cancelled at once.
    private func startDownload(_ id: Int, from source: URL) {
        ledger.downloadStarted(for: key)
        let task = Task { [self] in
            await run(id, from: source)
            ledger.downloadEnded(for: key)
        }
        if !locked({ state in state.attach(task, to: id) }) { task.cancel() }
    }

    private func run(_ id: Int, from source: URL) async {
        guard let (range, ifRange) = locked({ state in state.request(of: id) }) else { return }
        let request = OriginRequest(url: source, range: range, ifRange: ifRange)
        do {
            let response = try await origin.fetch(request)
            let answer = try OriginAnswer.parse(status: response.status, headers: response.headers, for: request)
            guard var framing = answer.framing else {
                if case .unsatisfiable(let length) = answer {
                    adopt(VideoContentInfo(length: length ?? request.range.lowerBound), for: id)
                }
                finish(id, failure: nil)
                return
            }
            // A whole body (the origin ignored Range, or If-Range found a new version) starts at
            // byte 0; the bytes before this download's start are skipped, not stored, unless the
            // body is a new version (then the download restocks from byte 0: see adopt).
            adopt(answer, to: request, for: id)
            var wantsMore = true
            for try await chunk in response.body {
                // Checked before any byte of the chunk is used: a byte past the end the headers
                // named is never stored (the whole answer is a protocol error).
                let bytes = try framing.take(chunk.count)
                let (more, shouldPersist) = try accept(chunk, covering: bytes, for: id)
                wantsMore = more
                if shouldPersist { schedulePersist() }
                if !wantsMore { break }
            }
            var expectedEnd = framing.end
            if expectedEnd == nil, wantsMore {
                // A whole body of unknown length that ended cleanly: its end is the length.
                adopt(VideoContentInfo(length: framing.offset), for: id)
                expectedEnd = framing.offset
            }
            if let expectedEnd, let short = locked({ state in state.shortfall(of: id, expectedEnd: expectedEnd) }) {
                throw VideoCacheError.truncatedBody(expected: short.expected, received: short.received)
            }
            finish(id, failure: nil)
        } catch is URLSessionOrigin.ConsumerFellBehind {
            // Not a failure: the download ends where it got to, and the readers still waiting
            // plan again from there, starting a new request.
            finish(id, failure: nil)
        } catch {
            finish(id, failure: Self.describe(error))
        }
        persist()
    }

    /// Takes in what an answer's head said about the resource (see ``EntryState/adopt(_:for:wholeBody:ifRange:)``).
    @discardableResult
    private func adopt(_ answer: OriginAnswer, to request: OriginRequest, for id: Int?) -> Int? {
        switch answer {
        case .partial(_, let info):
            adopt(info, for: id)
        case .whole(let info):
            adopt(info, for: id, wholeBody: true, ifRange: request.ifRange)
        case .unsatisfiable(let length):
            adopt(VideoContentInfo(length: length), for: id)
        }
    }

    /// Takes in what a response said about the resource; when it says the resource is not the
    /// one whose bytes are stored, the stored bytes are dropped first.
    ///
    /// `id` names the download that got the response, `nil` for a direct (uncached) fetch.
    /// Returns the resource's epoch after, or `nil` when the download is stale (it belongs to
    /// bytes dropped meanwhile) and its answer was ignored.
    @discardableResult
    private func adopt(_ info: VideoContentInfo, for id: Int?, wholeBody: Bool = false, ifRange: String? = nil) -> Int? {
        persistLock.withLock { books in
            let adoption = locked { state in
                let adoption = state.adopt(info, for: id, wholeBody: wholeBody, ifRange: ifRange)
                // Emptied before unlocking: a chunk of the new version written first would be
                // cut away by a later truncate and read back as zeros.
                if case .newVersion = adoption {
                    if state.file?.isWritable == true { try? state.file?.truncate() } else { state.file = nil }
                }
                return adoption
            }
            switch adoption {
            case .stale:
                return nil
            case .same(let epoch):
                return epoch
            case .newVersion(let epoch, let dropped, let stopped):
                for task in stopped { task.cancel() }
                if isStoring { ledger.release(dropped, for: key) }
                saveMetadata(&books)
                return epoch
            }
        }
    }

    /// Stores the useful part of a body chunk holding resource bytes `bytes`; returns whether
    /// the download wants more and whether enough is unpersisted to write the index.
    private func accept(_ chunk: Data, covering bytes: Range<Int64>, for id: Int) throws -> (Bool, Bool) {
        ledger.countOriginBytes(Int64(chunk.count))
        let offset = bytes.lowerBound
        return try locked { state in
            switch state.planChunk(bytes, for: id) {
            case .stale:
                return (false, false)
            case .skip:
                break
            case .write(let useful, let newBytes):
                guard ledger.admit(newBytes, for: key) else {
                    state.stopCaching(.disk("over the size limit"))
                    throw VideoCacheError.disk("over the size limit")
                }
                // Written under the lock, so a drop (truncate) can never come between this write
                // and its record, nor a stale write land after a newer one.
                let slice = chunk[Self.indices(of: useful, in: chunk, at: offset)]  // a slice: no copy
                do throws(SystemError) {
                    if state.file == nil {
                        // The first byte stored makes the file; O_NOFOLLOW refuses a planted link.
                        state.file = try SparseFile(path: dataPath, create: true, writable: true, files: files)
                    }
                    try state.file?.write(slice, at: useful.lowerBound)
                } catch {
                    // Nothing of this chunk is recorded as held: what reached the file before the
                    // failure is a hole's worth of unknown bytes. Readers go on uncached.
                    let failure = VideoCacheError.file(name: dataFileName, call: error.call, errno: error.code)
                    ledger.release(newBytes, for: key)
                    state.stopCaching(failure)
                    throw failure
                }
                state.stored(useful, for: id)
            }
            return (state.wantsMore(id), state.shouldPersist(at: .now))
        }
    }

    private func finish(_ id: Int, failure: VideoCacheError?) {
        locked { state in state.downloadEnded(id, failure: failure) }
    }

    /// Fetches `range` from the origin without storing it (caching is off for this resource).
    /// Returns the bytes and the epoch (version) they belong to.
    private func fetchDirect(_ range: Range<Int64>, from source: URL) async throws -> (Data, epoch: Int) {
        let request = OriginRequest(url: source, range: range, ifRange: locked { state in state.info?.ifRangeValidator })
        let response = try await origin.fetch(request)
        // Its validators are checked like a download's: a new version drops the old one's bytes
        // (here only from memory when the file is read-only) and bumps the epoch.
        let answer = try OriginAnswer.parse(status: response.status, headers: response.headers, for: request)
        guard var framing = answer.framing else {
            if case .unsatisfiable(let length?) = answer {
                return (Data(), adopt(VideoContentInfo(length: length), for: nil) ?? 0)
            }
            return (Data(), locked { state in state.assumeLength(range.lowerBound) })
        }
        let epoch = adopt(answer, to: request, for: nil) ?? 0
        var collected = Data()
        do {
            for try await chunk in response.body {
                ledger.countOriginBytes(Int64(chunk.count))
                let bytes = try framing.take(chunk.count)
                let wanted = bytes.clamped(to: range)
                if !wanted.isEmpty { collected.append(chunk.subdata(in: Self.indices(of: wanted, in: chunk, at: bytes.lowerBound))) }
                if bytes.upperBound >= range.upperBound { break }
            }
        } catch is URLSessionOrigin.ConsumerFellBehind where !collected.isEmpty {
            // The read goes on from what arrived with a new request.
        }
        return (collected, epoch)
    }

    // MARK: Persisting

    /// Makes the index durable: fsync the data, then replace the metadata with the ranges that
    /// were written before the fsync. Does nothing when the index would not change (a reader
    /// opened and closed with nothing new). Returns what failed, `nil` when the index on disk
    /// now describes every byte held (or the entry stores nothing).
    @discardableResult
    func persist() -> VideoCacheError? {
        persistLock.withLock { books in saveMetadata(&books) }
    }

    /// Persists on another thread, so a download keeps taking in bytes during the fsync;
    /// requests made while one is pending share it.
    private func schedulePersist() {
        guard locked({ state in state.requestPersist(at: .now) }) else { return }
        Task.detached { [self] in
            locked { state in state.persistPending = false }
            persist()
        }
    }

    /// Called under `persistLock`, with its books. Returns what failed, `nil` on success or when
    /// there was nothing to write.
    @discardableResult
    private func saveMetadata(_ books: inout IndexBooks) -> VideoCacheError? {
        // Only the lock holder writes the index, and only for a data file it made or opened to
        // write: an entry that stored nothing (a 404, a busy or read-only entry) leaves no files.
        guard isStoring, let (file, snapshot, blocks) = locked({ state -> (SparseFile, ResourceMetadata, Set<Int64>)? in
            guard let file = state.file, file.isWritable else { return nil }
            let (snapshot, blocks) = state.indexSnapshot(url: url.absoluteString, dataFileName: dataFileName)
            return (file, snapshot, blocks)
        }) else { return nil }
        let held = Set(EntryState.blocks(of: snapshot.ranges))
        var metadata = snapshot
        metadata.checksums = metadata.checksums.filter { held.contains($0.key) }
        // Nothing to sum and the same index as on disk: no fsync, no rewrite.
        if blocks.isEmpty, metadata == books.onDisk { return nil }
        // The changed blocks are summed from the file outside the entry lock: under
        // `persistLock` no drop can happen meanwhile, and new bytes only fill holes.
        var sums: [Int64: UInt32?] = [:]
        for block in blocks {
            let parts = snapshot.ranges.held(in: EntryState.blockRange(block))
            var crc: UInt32 = 0
            for part in parts {
                let data: Data
                do {
                    data = try file.read(at: part.lowerBound, count: part.count)
                } catch {
                    locked { state in state.summingFailed(blocks) }
                    return .file(name: dataFileName, call: error.call, errno: error.code)
                }
                guard data.count == part.count else {
                    // Summed again at the next write rather than left with a stale checksum.
                    locked { state in state.summingFailed(blocks) }
                    return .file(name: dataFileName, call: "pread (file shorter than its index)", errno: EIO)
                }
                crc = CRC32C.checksum(data, seed: crc)
            }
            sums[block] = parts.isEmpty ? nil : crc
            metadata.checksums[block] = sums[block] ?? nil
        }
        metadata.checksums = metadata.checksums.filter { held.contains($0.key) }
        locked { state in state.summed(sums) }
        do {
            try file.sync()
        } catch {
            // The next persist retries; until then the old index still describes real bytes.
            return .file(name: dataFileName, call: error.call, errno: error.code)
        }
        do {
            try metadata.save(to: metadataPath, files: files)
        } catch {
            return .file(name: EntryFiles.metadataName(of: key), call: error.call, errno: error.code)
        }
        books.onDisk = metadata
        books.writes += 1
        return nil
    }

    /// Notes a read now, for LRU order.
    func touch() {
        locked { state in state.lastAccess = Date().timeIntervalSince1970 }
    }

    /// Drops every stored byte (``VideoCache/remove(for:)`` while readers are open).
    func discardAll() {
        persistLock.withLock { books in
            let (dropped, stopped) = locked { state in
                let outcome = state.dropAll()
                try? state.file?.truncate()  // before unlocking, as in adopt
                return outcome
            }
            for task in stopped { task.cancel() }
            ledger.release(dropped, for: key)
            saveMetadata(&books)
        }
    }

    /// Cancels every download (the entry is being evicted or removed).
    func cancelAll() {
        for task in locked({ state in state.stopAllDownloads() }) { task.cancel() }
    }

    // MARK: Block checksums

    /// Checks the blocks of `range` not yet verified since the index was loaded; `false` when
    /// one failed (its bytes are dropped, to be fetched again).
    private func verify(_ range: Range<Int64>, generation: Int) -> Bool {
        let pending = locked { state in state.uncheckedBlocks(in: range) }
        guard !pending.isEmpty, let file = locked({ state in state.file }) else { return true }
        for (block, expected, parts) in pending {
            var crc: UInt32 = 0
            var intact = true
            for part in parts {
                guard let data = try? file.read(at: part.lowerBound, count: part.count), data.count == part.count else {
                    intact = false
                    break
                }
                crc = CRC32C.checksum(data, seed: crc)
            }
            intact = intact && crc == expected
            if let dropped = locked({ state in state.blockChecked(block, intact: intact, generation: generation) }) {
                if isStoring { ledger.release(dropped, for: key) }
                return false
            }
        }
        return true
    }

    /// The indices in `chunk` (which starts at resource offset `offset`) of the bytes `range`;
    /// relative to `startIndex`, as an origin may hand over a slice.
    private static func indices(of range: Range<Int64>, in chunk: Data, at offset: Int64) -> Range<Int> {
        (chunk.startIndex + Int(range.lowerBound - offset))..<(chunk.startIndex + Int(range.upperBound - offset))
    }

    private static func describe(_ error: any Error) -> VideoCacheError {
        switch error {
        case let error as VideoCacheError: error
        case is CancellationError: .cancelled
        default: .network("\(error)")
        }
    }
}
