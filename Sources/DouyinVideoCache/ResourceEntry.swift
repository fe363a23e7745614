import DouyinSupport
import Foundation

/// One cached resource: its data file, its range index, and the origin downloads filling it.
///
/// Readers never get bytes from a download directly: a download writes each chunk into the
/// sparse file and records it in the index, then wakes the readers, which read from the file.
/// So a byte is fetched once however many readers want it, a slow reader buffers nothing in
/// memory, and the index is the only truth about what is on disk.
final class ResourceEntry: @unchecked Sendable {
    // @unchecked Sendable: `state` is a LockedBox; `persistLock` orders the fsync-then-index
    // writes; everything else is immutable.

    /// An origin request in flight, filling `[position, end)`. `end` can shrink when a reader
    /// far ahead starts its own request there.
    struct Download {
        let start: Int64
        var end: Int64
        var position: Int64
        /// The index generation it writes for; a changed resource starts a new one.
        var generation: Int
        var task: Task<Void, Never>?
    }

    /// A read asleep until `wanted` is held or something else changes.
    struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        let wanted: Range<Int64>
    }

    /// What a reader does next.
    enum Step {
        case done
        /// The resource changed after this read handed out bytes of the old version.
        case changed
        /// Read these held bytes from the file; they belong to index generation `generation` and
        /// to version `epoch` of the resource.
        case read(Range<Int64>, generation: Int, epoch: Int)
        /// Sleep until bytes `[position, until)` are held or something else changes.
        case wait(version: Int, position: Int64, until: Int64)
        case direct(Range<Int64>)
        case fail(VideoCacheError)
    }

    fileprivate struct State {
        var info: VideoContentInfo?
        var ranges: ByteRangeSet
        /// Bumped whenever stored bytes are dropped (a new version, a remove).
        var generation = 0
        /// Bumped only when the origin reveals a new version (validator or length): a read that
        /// handed out bytes of one epoch must never hand out bytes of another.
        var epoch = 0
        /// The data file, opened when the entry is made if it exists, else created at the first
        /// byte stored (so a failed fetch leaves no file behind).
        var file: SparseFile?
        /// CRC-32C of each block's held bytes, as of the last index write (blocks in `dirty`
        /// have changed since and are summed again at the next one).
        var checksums: [Int64: UInt32] = [:]
        var dirty: Set<Int64> = []
        /// Blocks read from an index made before this entry, with the parts it said were held:
        /// those parts are checked against the block's checksum the first time it is read.
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
        /// Set once the bytes can no longer be stored (disk failure, over budget): readers then
        /// fetch what is missing straight from the origin.
        var uncached: VideoCacheError?
        var lastAccess: Double
        var unpersisted: Int64 = 0
        var persistPending = false
        /// Readers to wake once the lock is released: resuming a task while holding the lock
        /// deadlocks against that task's cancellation handler, which takes the lock.
        var wakeups: [CheckedContinuation<Void, Never>] = []
    }

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
    private let configuration: VideoCache.Configuration
    private let ledger: StorageLedger
    private let files: FileIO
    private let box: LockedBox<State>
    /// Held around a whole index write (fsync, then the index) and around the drops that must
    /// not interleave with one; it counts the index writes. Not a box of `Void`: Thread
    /// Sanitizer reports the zero-sized value's access as racing with the lock's own load.
    private let persistLock = LockedBox(0)

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
        self.configuration = configuration
        self.ledger = ledger
        self.files = files
        let lease = EntryLock.acquire(directory: directory, key: key)
        self.lease = lease
        let metadata = lease == nil ? nil : ResourceMetadata.load(from: metadataPath, key: key, files: files)
        let dataFileName = metadata?.dataFileName ?? EntryFiles.dataFileName(key: key, pathExtension: url.pathExtension)
        self.dataFileName = dataFileName
        self.dataPath = directory + "/" + dataFileName
        box = LockedBox(Self.opened(lease: lease, metadata: metadata, dataPath: dataPath, dataFileName: dataFileName, files: files))
    }

    /// The state of an entry just made: what its data file and index (read under its lock) hold.
    private static func opened(lease: EntryLock?, metadata: ResourceMetadata?, dataPath: String, dataFileName: String, files: FileIO) -> State {
        var state = State(info: nil, ranges: ByteRangeSet(), lastAccess: metadata?.lastAccess ?? Date().timeIntervalSince1970)
        guard let lease else {
            state.uncached = .disk("the entry is in use by another process")
            return state
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
        if let file = state.file, let metadata {
            state.info = metadata.info
            state.ranges = metadata.ranges(inFileOf: file.size())
            state.checksums = metadata.checksums
            for block in Self.blocks(of: state.ranges) {
                if metadata.checksums[block] == nil {
                    // Held bytes without a checksum are not trusted.
                    state.ranges.remove(Self.blockRange(block))
                } else {
                    state.unverified[block] = state.ranges.held(in: Self.blockRange(block))
                }
            }
        }
        return state
    }

    /// Why this entry does not store what it fetches; `nil` while it does.
    var uncachedError: VideoCacheError? {
        locked { state in state.uncached }
    }

    /// Whether this entry's lock belongs to this process and so its files may be written.
    var isStoring: Bool { lease?.mode == .exclusive }

    /// Runs `body` under the lock, then wakes the readers it made ready, after unlocking.
    private func locked<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
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

    /// Starts a read: the returned token names it for ``deliver(_:token:from:maxChunk:to:)``
    /// and ``cancelRead(_:)``.
    func beginRead() -> Int {
        locked { state in
            state.nextID += 1
            state.reads[state.nextID] = []
            return state.nextID
        }
    }

    /// Cancels a read at once: its downloads nobody else relies on stop, and the read throws
    /// `cancelled` (used when a reader is closed with reads still running).
    func cancelRead(_ token: Int) {
        release(token, cancelled: true)
    }

    /// Delivers `requested` (clipped to the resource's length) to `sink` in order, fetching
    /// what is missing; with no sink it only makes sure the bytes are cached (prefetch).
    ///
    /// Every byte handed to `sink` belongs to one version of the resource. When a fetch reveals
    /// a new version after bytes of the old one went out, the read throws `resourceChanged`,
    /// or, given `restart` (a caller that has not handed anything on yet), calls it and starts
    /// over from the first byte of the new version.
    func deliver(_ requested: Range<Int64>, token: Int, from source: URL, maxChunk: Int = .max,
                 restart: (() -> Void)? = nil, to sink: ((Data) throws -> Void)?) async throws {
        var position = requested.lowerBound
        /// The version of the bytes handed to `sink` so far; `nil` before the first.
        var handed: Int?
        do {
            while true {
                if Task.isCancelled { throw VideoCacheError.cancelled }
                switch locked({ state in plan(&state, position, in: requested, from: source, token: token, maxChunk: maxChunk, handed: handed) }) {
                case .done:
                    release(token, cancelled: false)
                    return
                case .changed:
                    guard let restart else { throw VideoCacheError.resourceChanged(url: source.absoluteString) }
                    restart()
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
                        handed = epoch
                    }
                    position = end
                case .wait(let version, let from, let until):
                    await waitForChange(after: version, bytes: from..<until)
                case .direct(let range):
                    let (data, epoch) = try await fetchDirect(range, from: source)
                    // A direct fetch that found a new version dropped the old one's bytes (and
                    // bumped the epoch); the next plan then says `changed` before any goes out.
                    if let handed, handed != epoch { continue }
                    if let sink, !data.isEmpty {
                        try sink(data)
                        handed = epoch
                    }
                    if data.isEmpty {
                        release(token, cancelled: false)
                        return
                    }
                    position += Int64(data.count)
                case .fail(let error):
                    throw error
                }
            }
        } catch {
            let failure = Self.describe(error)
            release(token, cancelled: failure == .cancelled)
            throw failure
        }
    }

    /// Decides the next step for the read `token` at `position`. Called under `lock`.
    private func plan(_ state: inout State, _ position: Int64, in requested: Range<Int64>, from source: URL, token: Int, maxChunk: Int, handed: Int?) -> Step {
        guard let relied = state.reads[token] else { return .fail(.cancelled) }
        // Checked first, before `done`: a new version may also be shorter than the old.
        if let handed, handed != state.epoch { return .changed }
        var upper = requested.upperBound
        if let length = state.info?.length { upper = min(upper, length) }
        guard position < upper else { return .done }
        if let held = state.ranges.heldRunEnd(from: position) {
            return .read(position..<min(held, upper), generation: state.generation, epoch: state.epoch)
        }
        if state.uncached != nil {
            let gap = state.ranges.missing(in: position..<upper)[0]
            return .direct(gap)
        }
        if let failed = relied.compactMap({ state.failures[$0] }).first {
            return .fail(failed)
        }
        if let (id, download) = state.downloads.first(where: { $0.value.position <= position && position < $0.value.end }) {
            if position - download.position <= configuration.readOnThreshold {
                rely(&state, on: id, token: token)
                return .wait(version: state.version, position: position, until: wakeEnd(position, upper, maxChunk))
            }
            // Too far ahead to wait for: that download stops here and a new one starts.
            state.downloads[id]?.end = position
        }
        let id = startDownload(&state, at: position, upTo: upper, from: source)
        rely(&state, on: id, token: token)
        return .wait(version: state.version, position: position, until: wakeEnd(position, upper, maxChunk))
    }

    /// How far past `position` a waiting read wants bytes before it is woken: any byte for a
    /// stream (a player starts on what has arrived), the next 1 MB for a collecting read, so it
    /// copies held bytes out while the download goes on (a cold 32 MB read took 1.35–1.85× a
    /// plain download when woken once at the end, 0.87–1.38× woken every 1 MB).
    private func wakeEnd(_ position: Int64, _ upper: Int64, _ maxChunk: Int) -> Int64 {
        maxChunk == .max ? min(upper, position + 1 << 20) : position + 1
    }

    /// Called under `lock`.
    private func rely(_ state: inout State, on id: Int, token: Int) {
        if state.reads[token]?.insert(id).inserted == true { state.demand[id, default: 0] += 1 }
    }

    /// Ends a read and lets go of the downloads it relied on; a cancelled read's downloads that
    /// nobody else needs are cancelled too. Ending a read twice does nothing.
    private func release(_ token: Int, cancelled: Bool) {
        locked { state in
            guard let relied = state.reads.removeValue(forKey: token) else { return }
            for id in relied {
                let remaining = (state.demand[id] ?? 1) - 1
                guard remaining <= 0 else {
                    state.demand[id] = remaining
                    continue
                }
                state.demand[id] = nil
                state.failures[id] = nil
                if cancelled, let download = state.downloads.removeValue(forKey: id) {
                    download.task?.cancel()
                }
            }
            if cancelled { state.signal() }
        }
    }

    private func readFile(_ range: Range<Int64>, generation: Int) throws -> Data {
        do {
            // No file means the bytes were dropped since the plan: read as none held.
            let data = try locked({ state in state.file })?.read(at: range.lowerBound, count: range.count) ?? Data()
            if data.count == range.count { return data }
            // The file lost bytes the index holds (truncated behind our back): forget them,
            // unless the index has moved on to a new generation whose bytes these are not.
            locked { state in
                if state.generation == generation {
                    let cut = range.lowerBound + Int64(data.count)
                    state.ranges.removeAll(from: cut)
                    state.dirty.formUnion(state.checksums.keys.filter { $0 >= cut / ResourceMetadata.blockSize })
                }
            }
            return data
        } catch {
            throw VideoCacheError.file(name: dataFileName, call: error.call, errno: error.code)
        }
    }

    private func waitForChange(after version: Int, bytes wanted: Range<Int64>) async {
        let token = locked { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                locked { state in
                    if state.version != version || state.isHeld(wanted) || Task.isCancelled {
                        state.wakeups.append(continuation)
                    } else {
                        state.waiters[token] = Waiter(continuation: continuation, wanted: wanted)
                    }
                }
            }
        } onCancel: {
            locked { state in state.waiters.removeValue(forKey: token) }?.continuation.resume()
        }
    }

    // MARK: Downloading

    /// Plans a download from `position` (missing, not covered) through the gap and any small
    /// held gaps after it, stopping at the next download. Called under `lock`.
    private func startDownload(_ state: inout State, at position: Int64, upTo upper: Int64, from source: URL) -> Int {
        let gaps = state.ranges.missing(in: position..<upper)
        var end = gaps[0].upperBound
        for gap in gaps.dropFirst() {
            guard gap.lowerBound - end < configuration.coalescingGap else { break }
            end = gap.upperBound
        }
        for download in state.downloads.values where download.position > position {
            end = min(end, download.position)
        }
        state.nextID += 1
        let id = state.nextID
        state.downloads[id] = Download(start: position, end: end, position: position, generation: state.generation)
        ledger.downloadStarted(for: key)
        state.downloads[id]?.task = Task { [self] in
            await run(id, from: source)
            ledger.downloadEnded(for: key)
        }
        return id
    }

    private func run(_ id: Int, from source: URL) async {
        guard let request = locked({ state -> OriginRequest? in
            guard let download = state.downloads[id] else { return nil }
            return OriginRequest(url: source, range: download.start..<download.end, ifRange: state.info?.ifRangeValidator)
        }) else { return }
        do {
            let response = try await origin.fetch(request)
            var offset: Int64
            var expectedEnd: Int64?
            var isWholeBody = false
            switch try OriginAnswer.parse(status: response.status, headers: response.headers, for: request) {
            case .partial(let range, let info):
                adopt(info, for: id)
                offset = range.lowerBound
                expectedEnd = range.upperBound
            case .whole(let info):
                // The origin ignored Range (or If-Range found a new version): the body starts at
                // byte 0, and the bytes before this download's start are skipped, not stored.
                adopt(info, for: id)
                offset = 0
                expectedEnd = info.length
                isWholeBody = true
            case .unsatisfiable(let length):
                adopt(VideoContentInfo(length: length ?? request.range.lowerBound), for: id)
                finish(id, failure: nil)
                return
            }
            var wantsMore = true
            for try await chunk in response.body {
                let (more, shouldPersist) = try accept(chunk, at: offset, for: id)
                offset += Int64(chunk.count)
                wantsMore = more
                if shouldPersist { schedulePersist() }
                if !wantsMore { break }
            }
            if isWholeBody, wantsMore, expectedEnd == nil {
                // A whole body of unknown length that ended cleanly: its end is the length.
                adopt(VideoContentInfo(length: offset), for: id)
                expectedEnd = offset
            }
            try locked { state in
                guard let download = state.downloads[id], let expectedEnd else { return }
                let target = min(download.end, expectedEnd)
                if download.position < target {
                    throw VideoCacheError.truncatedBody(expected: target - download.start, received: download.position - download.start)
                }
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

    /// Takes in what a response said about the resource; when it says the resource is not the
    /// one whose bytes are stored, the stored bytes are dropped first.
    ///
    /// `id` names the download that got the response, `nil` for a direct (uncached) fetch.
    /// Returns the resource's epoch after, or `nil` when the download is stale (it belongs to
    /// bytes dropped meanwhile) and its answer was ignored.
    @discardableResult
    private func adopt(_ info: VideoContentInfo, for id: Int?) -> Int? {
        persistLock.withLock { _ in
            let outcome = locked { state -> (epoch: Int, discarded: Int64?)? in
                if let id {
                    guard let download = state.downloads[id], download.generation == state.generation else { return nil }
                }
                guard let old = state.info, old.differs(from: info) else {
                    var merged = info
                    merged.length = info.length ?? state.info?.length
                    merged.mimeType = info.mimeType ?? state.info?.mimeType
                    merged.etag = info.etag ?? state.info?.etag
                    merged.lastModified = info.lastModified ?? state.info?.lastModified
                    state.info = merged
                    return (state.epoch, nil)
                }
                // A new version: every stored byte of the old one goes before any of this
                // answer is stored or served.
                let dropped = state.ranges.byteCount
                state.generation += 1
                state.epoch += 1
                state.ranges = ByteRangeSet()
                state.checksums = [:]
                state.dirty = []
                state.unverified = [:]
                state.info = info
                for (other, download) in state.downloads where other != id {
                    download.task?.cancel()
                    state.downloads[other] = nil
                }
                let generation = state.generation  // read first: the optional-chained write below is one access
                if let id { state.downloads[id]?.generation = generation }
                if state.file?.isWritable == true { try? state.file?.truncate() } else { state.file = nil }
                state.signal()
                return (state.epoch, dropped)
            }
            guard let outcome else { return nil }
            if let discarded = outcome.discarded {
                if isStoring { ledger.release(discarded, for: key) }
                saveMetadata()
            }
            return outcome.epoch
        }
    }

    /// Stores the useful part of a body chunk; returns whether the download wants more and
    /// whether enough is unpersisted to write the index.
    private func accept(_ chunk: Data, at offset: Int64, for id: Int) throws -> (Bool, Bool) {
        ledger.countOriginBytes(Int64(chunk.count))
        return try locked { state in
            // Callbacks can arrive after a cancel: a download no longer listed writes nothing.
            guard let download = state.downloads[id], download.generation == state.generation else { return (false, false) }
            let chunkRange = offset..<(offset + Int64(chunk.count))
            let useful = max(chunkRange.lowerBound, download.position)..<max(max(chunkRange.lowerBound, download.position), min(chunkRange.upperBound, download.end))
            if !useful.isEmpty {
                let added = state.ranges.missing(in: useful).reduce(Int64(0)) { $0 + Int64($1.count) }
                guard ledger.admit(added, for: key) else {
                    state.uncached = .disk("over the size limit")
                    state.signal()
                    throw VideoCacheError.disk("over the size limit")
                }
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
                    ledger.release(added, for: key)
                    state.uncached = failure
                    state.signal()
                    throw failure
                }
                state.ranges.insert(useful)
                state.dirty.formUnion(Self.blocks(of: useful))
                state.downloads[id]?.position = useful.upperBound
                state.unpersisted += Int64(useful.count)
                state.signalProgress()
            }
            let position = state.downloads[id]?.position ?? download.position
            return (position < download.end, state.unpersisted >= configuration.persistInterval)
        }
    }

    private func finish(_ id: Int, failure: VideoCacheError?) {
        locked { state in
            guard state.downloads.removeValue(forKey: id) != nil else { return }
            if let failure, state.demand[id] != nil { state.failures[id] = failure }
            state.signal()
        }
    }

    /// Fetches `range` from the origin without storing it (caching is off for this resource).
    /// Returns the bytes and the epoch (version) they belong to.
    private func fetchDirect(_ range: Range<Int64>, from source: URL) async throws -> (Data, epoch: Int) {
        let request = OriginRequest(url: source, range: range, ifRange: locked { state in state.info?.ifRangeValidator })
        let response = try await origin.fetch(request)
        var offset: Int64
        let epoch: Int
        // Its validators are checked like a download's: a new version drops the old one's bytes
        // (here only from memory when the file is read-only) and bumps the epoch.
        switch try OriginAnswer.parse(status: response.status, headers: response.headers, for: request) {
        case .partial(let sent, let info):
            epoch = adopt(info, for: nil) ?? 0
            offset = sent.lowerBound
        case .whole(let info):
            epoch = adopt(info, for: nil) ?? 0
            offset = 0
        case .unsatisfiable(let length):
            if let length {
                return (Data(), adopt(VideoContentInfo(length: length), for: nil) ?? 0)
            }
            return (Data(), locked { state in
                state.info = state.info ?? VideoContentInfo(length: range.lowerBound)
                return state.epoch
            })
        }
        var collected = Data()
        do {
            for try await chunk in response.body {
                ledger.countOriginBytes(Int64(chunk.count))
                let chunkEnd = offset + Int64(chunk.count)
                let from = max(offset, range.lowerBound)
                let to = min(chunkEnd, range.upperBound)
                if from < to { collected.append(chunk.subdata(in: Self.indices(of: from..<to, in: chunk, at: offset))) }
                offset = chunkEnd
                if offset >= range.upperBound { break }
            }
        } catch is URLSessionOrigin.ConsumerFellBehind where !collected.isEmpty {
            // The read goes on from what arrived with a new request.
        }
        return (collected, epoch)
    }

    // MARK: Persisting

    /// Makes the index durable: fsync the data, then replace the metadata with the ranges that
    /// were written before the fsync.
    func persist() {
        persistLock.withLock { writes in
            writes += 1
            saveMetadata()
        }
    }

    /// Persists on another thread, so a download keeps taking in bytes during the fsync;
    /// requests made while one is pending share it.
    private func schedulePersist() {
        let alreadyPending = locked { state in
            defer { state.persistPending = true }
            return state.persistPending
        }
        guard !alreadyPending else { return }
        Task.detached { [self] in
            locked { state in state.persistPending = false }
            persist()
        }
    }

    /// Called under `persistLock`.
    private func saveMetadata() {
        // Only the lock holder writes the index, and only for a data file it made or opened to
        // write: an entry that stored nothing (a 404, a busy or read-only entry) leaves no files.
        guard isStoring, let (file, snapshot, dirty) = locked({ state -> (SparseFile, ResourceMetadata, Set<Int64>)? in
            guard let file = state.file, file.isWritable else { return nil }
            state.unpersisted = 0
            // A block not yet verified keeps its old checksum (summing it now could bless damaged
            // bytes); it is summed after its check.
            let summed = state.dirty.filter { state.unverified[$0] == nil }
            state.dirty.subtract(summed)
            let snapshot = ResourceMetadata(url: url.absoluteString, dataFileName: dataFileName, info: state.info, ranges: state.ranges,
                                            lastAccess: state.lastAccess, checksums: state.checksums)
            return (file, snapshot, summed)
        }) else { return }
        // The changed blocks are summed from the file outside the entry lock: under
        // `persistLock` no drop can happen meanwhile, and new bytes only fill holes.
        var metadata = snapshot
        for block in dirty {
            let parts = snapshot.ranges.held(in: Self.blockRange(block))
            var crc: UInt32 = 0
            for part in parts {
                guard let data = try? file.read(at: part.lowerBound, count: part.count), data.count == part.count else {
                    // Summed again at the next write rather than left with a stale checksum.
                    locked { state in state.dirty.formUnion(dirty) }
                    return
                }
                crc = CRC32C.checksum(data, seed: crc)
            }
            metadata.checksums[block] = parts.isEmpty ? nil : crc
        }
        let held = Set(Self.blocks(of: snapshot.ranges))
        metadata.checksums = metadata.checksums.filter { held.contains($0.key) }
        locked { state in
            for block in dirty { state.checksums[block] = metadata.checksums[block] }
        }
        do {
            try file.sync()
            try metadata.save(to: metadataPath, files: files)
        } catch {
            // The next persist retries; until then the old index still describes real bytes.
        }
    }

    /// Notes a read now, for LRU order.
    func touch() {
        locked { state in state.lastAccess = Date().timeIntervalSince1970 }
    }

    /// Drops every stored byte (``VideoCache/remove(for:)`` while readers are open).
    func discardAll() {
        persistLock.withLock { _ in
            let dropped = locked { state -> Int64 in
                let dropped = state.ranges.byteCount
                state.generation += 1
                state.ranges = ByteRangeSet()
                state.checksums = [:]
                state.dirty = []
                state.unverified = [:]
                for download in state.downloads.values { download.task?.cancel() }
                state.downloads.removeAll()
                try? state.file?.truncate()
                state.signal()
                return dropped
            }
            ledger.release(dropped, for: key)
            saveMetadata()
        }
    }

    /// Cancels every download (the entry is being evicted or removed).
    func cancelAll() {
        locked { state in
            for download in state.downloads.values { download.task?.cancel() }
            state.downloads.removeAll()
            state.signal()
        }
    }

    // MARK: Block checksums

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

    static func blockRange(_ block: Int64) -> Range<Int64> {
        (block * ResourceMetadata.blockSize)..<((block + 1) * ResourceMetadata.blockSize)
    }

    /// Checks the blocks of `range` not yet verified since the index was loaded; `false` when
    /// one failed (its bytes are dropped, to be fetched again).
    private func verify(_ range: Range<Int64>, generation: Int) -> Bool {
        let pending = locked { state -> [(Int64, UInt32, [Range<Int64>])] in
            Self.blocks(of: range).compactMap { block in
                guard let parts = state.unverified[block] else { return nil }
                return (block, state.checksums[block] ?? 0, parts)
            }
        }
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
            let accepted = locked { state -> Bool in
                guard state.generation == generation, state.unverified.removeValue(forKey: block) != nil else { return true }
                guard !intact else { return true }
                let dropped = state.ranges.held(in: Self.blockRange(block)).reduce(Int64(0)) { $0 + Int64($1.count) }
                state.ranges.remove(Self.blockRange(block))
                state.checksums[block] = nil
                state.dirty.insert(block)
                if isStoring { ledger.release(dropped, for: key) }
                state.signal()
                return false
            }
            if !accepted { return false }
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

/// The decisions every reader and download takes under the entry's lock.
extension ResourceEntry.State {
    /// Whether all of `wanted` is held.
    func isHeld(_ wanted: Range<Int64>) -> Bool {
        (ranges.heldRunEnd(from: wanted.lowerBound) ?? wanted.lowerBound) >= wanted.upperBound
    }

    /// Records a change every reader must look at (a download ended, bytes were dropped,
    /// caching stopped) and wakes them all once the lock is released.
    mutating func signal() {
        version += 1
        wakeups.append(contentsOf: waiters.values.lazy.map(\.continuation))
        waiters.removeAll(keepingCapacity: true)
    }

    /// Wakes the readers whose wanted bytes are now all held, once the lock is released.
    mutating func signalProgress() {
        for (token, waiter) in waiters where isHeld(waiter.wanted) {
            waiters[token] = nil
            wakeups.append(waiter.continuation)
        }
    }
}
