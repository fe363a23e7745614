import DouyinLogging
import DouyinSupport
import Foundation

/// Downloads: the cached path (a download storing into the file for every reader) and the
/// direct path (an uncached read's own request), both over one ``OriginTransfer``.
extension ResourceEntry {
    /// Starts the download the state listed as `id`; when it ended before its task exists
    /// (its only reader was cancelled), the task is cancelled at once.
    func startDownload(_ id: Int, from source: URL) {
        ledger.downloadStarted(for: key)
        let task = Task { [self] in
            await run(id, from: source)
            ledger.downloadEnded(for: key)
        }
        if !locked({ $0.state.attach(task, to: id) }) { task.cancel() }
    }

    private func run(_ id: Int, from source: URL) async {
        guard let (range, ifRange) = locked({ $0.state.request(of: id) }) else { return }
        let request = OriginRequest(url: source, range: range, ifRange: ifRange)
        var received: Int64 = 0
        log?(event(.debug, "download started", source, ["range": "\(range.lowerBound)-\(range.upperBound - 1)"]))
        defer { log?(event(.info, "download ended", source, ["bytes": String(received)])) }
        do {
            var transfer = try await OriginTransfer.start(request, from: origin)
            guard transfer.hasBody else {
                if case .unsatisfiable(let length) = transfer.answer {
                    adopt(VideoContentInfo(length: length ?? request.range.lowerBound), for: id)
                }
                finish(id, failure: nil)
                return
            }
            // A whole body (the origin ignored Range, or If-Range found a new version) starts at
            // byte 0; the bytes before this download's start are skipped, not stored, unless the
            // body is a new version (then the download restocks from byte 0: see adopt).
            adopt(transfer.answer, to: request, for: id)
            var wantsMore = true
            let ending = try await transfer.forEachChunk { chunk, bytes in
                ledger.countOriginBytes(Int64(chunk.count))
                received += Int64(chunk.count)
                let (more, shouldPersist) = try accept(chunk, covering: bytes, for: id)
                announce()
                wantsMore = more
                if shouldPersist { schedulePersist() }
                return more
            }
            if case .stoppedEarly = ending {
                // Not a failure: the download ends where it got to, and the readers still
                // waiting plan again from there, starting a new request.
                finish(id, failure: nil)
                persist()
                return
            }
            var expectedEnd = transfer.end
            if expectedEnd == nil, wantsMore {
                // A whole body of unknown length that ended cleanly: its end is the length.
                adopt(VideoContentInfo(length: transfer.offset), for: id)
                expectedEnd = transfer.offset
            }
            if let expectedEnd, let short = locked({ $0.state.shortfall(of: id, expectedEnd: expectedEnd) }) {
                throw VideoCacheError.truncatedBody(expected: short.expected, received: short.received)
            }
            finish(id, failure: nil)
        } catch {
            let failure = Self.describe(error)
            if failure != .cancelled { log?(event(.error, "download failed", source, ["error": "\(failure)"])) }
            finish(id, failure: failure)
        }
        persist()
    }

    /// One of this entry's download events.
    private func event(_ level: LogEvent.Level, _ message: String, _ source: URL, _ values: [String: String]) -> LogEvent {
        LogEvent(level: level, subsystem: VideoCache.subsystem, message: message, metadata: values.merging(["url": source.absoluteString]) { $1 })
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
        let epoch = persistLock.withLock { books -> (epoch: Int?, dropped: Bool) in
            let adoption = locked { guarded in
                let adoption = guarded.state.adopt(info, for: id, wholeBody: wholeBody, ifRange: ifRange)
                // Emptied before unlocking: a chunk of the new version written first would be
                // cut away by a later truncate and read back as zeros.
                if case .newVersion = adoption {
                    if guarded.file?.isWritable == true { try? guarded.file?.truncate() } else { guarded.file = nil }
                    guarded.state.wroteFile(try? guarded.file?.identity())
                }
                return adoption
            }
            switch adoption {
            case .stale:
                return (nil, false)
            case .same(let epoch):
                return (epoch, false)
            case .newVersion(let epoch, let dropped, let stopped):
                for task in stopped { task.cancel() }
                if isStoring { ledger.release(dropped, for: key) }
                saveMetadata(&books)
                return (epoch, true)
            }
        }
        // A length learnt is news too: a watcher waits for it to tell "complete".
        announce()
        return epoch.epoch
    }

    /// Stores the useful part of a body chunk holding resource bytes `bytes`; returns whether
    /// the download wants more and whether enough is unpersisted to write the index.
    private func accept(_ chunk: Data, covering bytes: Range<Int64>, for id: Int) throws -> (Bool, Bool) {
        let offset = bytes.lowerBound
        var evictions = StorageLedger.Evictions()
        // Told once the entry's lock is released (see ``StorageLedger/admit(_:for:evictions:)``).
        defer { ledger.tell(evictions) }
        return try locked { guarded in
            switch guarded.state.planChunk(bytes, for: id) {
            case .stale:
                return (false, false)
            case .skip:
                break
            case .write(let useful, let newBytes):
                guard ledger.admit(newBytes, for: key, evictions: &evictions) else {
                    let failure = VideoCacheError.overSizeLimit(ledger.sizeLimit)
                    guarded.state.stopCaching(failure)
                    throw failure
                }
                // Written under the lock, so a drop (truncate) can never come between this write
                // and its record, nor a stale write land after a newer one.
                let slice = chunk[Self.indices(of: useful, in: chunk, at: offset)]  // a slice: no copy
                do throws(SystemError) {
                    if guarded.file == nil {
                        // The first byte stored makes the file; O_NOFOLLOW refuses a planted link.
                        guarded.file = try SparseFile(path: dataPath, create: true, writable: true, files: files)
                    }
                    try guarded.file?.write(slice, at: useful.lowerBound)
                    guarded.state.wroteFile(try? guarded.file?.identity())
                } catch {
                    // Nothing of this chunk is recorded as held: what reached the file before the
                    // failure is a hole's worth of unknown bytes. Readers go on uncached.
                    let failure = VideoCacheError.file(name: dataFileName, call: error.call, errno: error.code)
                    ledger.release(newBytes, for: key)
                    guarded.state.stopCaching(failure)
                    throw failure
                }
                guarded.state.stored(useful, for: id)
            }
            return (guarded.state.wantsMore(id), guarded.state.shouldPersist(at: .now))
        }
    }

    private func finish(_ id: Int, failure: VideoCacheError?) {
        locked { $0.state.downloadEnded(id, failure: failure) }
    }

    /// Fetches `range` from the origin without storing it (caching is off for this resource).
    /// Returns the bytes and the epoch (version) they belong to.
    func fetchDirect(_ range: Range<Int64>, from source: URL) async throws -> (Data, epoch: Int) {
        let request = OriginRequest(url: source, range: range, ifRange: locked { $0.state.info?.ifRangeValidator })
        var transfer = try await OriginTransfer.start(request, from: origin)
        // Its validators are checked like a download's: a new version drops the old one's bytes
        // (here only from memory when the file is read-only) and bumps the epoch.
        guard transfer.hasBody else {
            if case .unsatisfiable(let length?) = transfer.answer {
                return (Data(), adopt(VideoContentInfo(length: length), for: nil) ?? 0)
            }
            return (Data(), locked { $0.state.assumeLength(range.lowerBound) })
        }
        let epoch = adopt(transfer.answer, to: request, for: nil) ?? 0
        var collected = Data()
        let ending = try await transfer.forEachChunk { chunk, bytes in
            ledger.countOriginBytes(Int64(chunk.count))
            let wanted = bytes.clamped(to: range)
            if !wanted.isEmpty { collected.append(chunk.subdata(in: Self.indices(of: wanted, in: chunk, at: bytes.lowerBound))) }
            return bytes.upperBound < range.upperBound
        }
        // Stopped early with bytes: the read goes on from what arrived with a new request. With
        // none, going on would ask the same again: the transfer failed.
        if case .stoppedEarly = ending, collected.isEmpty { throw OriginStoppedEarly() }
        return (collected, epoch)
    }
}
