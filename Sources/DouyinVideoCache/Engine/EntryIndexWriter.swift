import DouyinSupport
import Foundation

/// What an entry's index file says, as of the last write or load, and how many writes were
/// made; kept under the entry's `persistLock`.
struct IndexBooks {
    var onDisk: ResourceMetadata?
    /// The entry state's ``EntryState/indexVersion`` at which it was last found to say what
    /// ``onDisk`` says (but for the access time); `nil` when not known since ``onDisk`` was set.
    var matchedVersion: Int?
    var writes = 0
}

/// The CRC-32C of a block's held parts: the one checksum loop, for the index write (summing
/// changed blocks from the file) and for the first read after a restart (checking them).
enum BlockChecksum {
    /// The checksum of `parts` read from `file`; `nil` when the file ends before their end.
    static func sum(_ parts: [Range<Int64>], in file: SparseFile) throws(SystemError) -> UInt32? {
        var crc: UInt32 = 0
        for part in parts {
            let data = try file.read(at: part.lowerBound, count: part.count)
            guard data.count == part.count else { return nil }
            crc = CRC32C.checksum(data, seed: crc)
        }
        return crc
    }

    /// The checksum of `parts` taken from `data`, bytes already read that start at resource
    /// offset `offset`; `nil` when `data` does not cover them all.
    static func sum(_ parts: [Range<Int64>], in data: Data, at offset: Int64) -> UInt32? {
        var crc: UInt32 = 0
        for part in parts {
            guard part.lowerBound >= offset, part.upperBound - offset <= Int64(data.count) else { return nil }
            crc = CRC32C.checksum(data[ResourceEntry.indices(of: part, in: data, at: offset)], seed: crc)
        }
        return crc
    }
}

/// The index writer: fsync the data, then write the index that describes it; and the checks
/// of blocks an index from before this entry described.
extension ResourceEntry {
    /// Makes the index durable: fsync the data, then replace the metadata with the ranges that
    /// were written before the fsync. Does nothing when the index would not change (a reader
    /// opened and closed with nothing new). Returns what failed, `nil` when the index on disk
    /// now describes every byte held (or the entry stores nothing).
    @discardableResult
    func persist() -> VideoCacheError? {
        persistLock.withLock { books in saveMetadata(&books) }
    }

    /// Whether ``persist()`` may write now: a changed block to sum, a download that may store
    /// one any moment, an index write running (its lock is busy), or an index that would say
    /// something the one on disk does not. For choosing where to run it (the proxy runs a close
    /// that may write off its socket loop's thread: the fsyncs would hold every connection), so
    /// it never waits for the index lock itself; ``persist()`` decides again.
    var persistWouldWrite: Bool {
        guard isStoring else { return false }
        guard let (onDisk, matched) = persistLock.withLockIfAvailable({ ($0.onDisk, $0.matchedVersion) }) else { return true }
        return locked { guarded in
            guard let file = guarded.file, file.isWritable else { return false }
            let state = guarded.state
            if !state.downloads.isEmpty || state.dirty.contains(where: { state.unverified[$0] == nil }) { return true }
            if let onDisk, matched == state.indexVersion { return !Self.isWithinSlack(state.lastAccess, onDisk) }
            return !Self.isUnchanged(state.metadata(url: url.absoluteString, dataFileName: dataFileName), since: onDisk)
        }
    }

    /// Seconds an index's access time may lag the entry's before a write with nothing else new
    /// is made for it.
    static let accessTimeSlack: Double = 60

    /// How many index writes this entry made (for tests: a write with nothing new is none).
    var indexWrites: Int { persistLock.withLock { $0.writes } }

    /// Persists on another thread, so a download keeps taking in bytes during the fsync;
    /// requests made while one is pending share it.
    ///
    /// That thread is the index writers' own (``IndexWriteQueue``), not one async tasks share:
    /// an index write blocks in `fsync`s (the data file's first megabyte took 2–5 ms here, a
    /// whole 32 MB one 17–25 ms), and on Linux the tasks' pool has one thread a core, which
    /// such a write held for all that time.
    func schedulePersist() {
        guard locked({ $0.state.requestPersist(at: .now) }) else { return }
        IndexWriteQueue.queue.async { [self] in
            locked { $0.state.persistPending = false }
            persist()
        }
    }

    /// Called under `persistLock`, with its books. Returns what failed, `nil` on success or when
    /// there was nothing to write.
    @discardableResult
    func saveMetadata(_ books: inout IndexBooks) -> VideoCacheError? {
        // Only the lock holder writes the index, and only for a data file it made or opened to
        // write: an entry that stored nothing (a 404, a busy or read-only entry) leaves no files.
        guard isStoring, let (file, snapshot, blocks, version) = locked({ guarded -> (SparseFile, ResourceMetadata, Set<Int64>, Int)? in
            guard let file = guarded.file, file.isWritable else { return nil }
            // The same state as an index found equal before, and only the access time may
            // have moved: no snapshot is made (a proxy closes a reader after every answer).
            if let onDisk = books.onDisk, books.matchedVersion == guarded.state.indexVersion, guarded.state.dirty.isEmpty,
               Self.isWithinSlack(guarded.state.lastAccess, onDisk) {
                return nil
            }
            let (snapshot, blocks) = guarded.state.indexSnapshot(url: url.absoluteString, dataFileName: dataFileName)
            return (file, snapshot, blocks, guarded.state.indexVersion)
        }) else { return nil }
        // Nothing to sum and the same index as on disk: no fsync, no rewrite. Nor when only the
        // access time moved, by less than ``accessTimeSlack``: a proxy closes a reader after
        // every answer, and an index write is three fsyncs and a JSON encode (14 % of the
        // proxy's CPU under 8 range readers); a restart's LRU order is kept to the minute.
        // The snapshot is compared as it is first: the index on disk holds checksums of held
        // blocks only, so when they are equal the filtering below (a set of every held block)
        // is not needed; it was 5 % of the proxy's CPU per answer.
        if blocks.isEmpty, Self.isUnchanged(snapshot, since: books.onDisk) {
            books.matchedVersion = version
            return nil
        }
        let held = Set(EntryState.blocks(of: snapshot.ranges))
        var metadata = snapshot
        metadata.checksums = metadata.checksums.filter { held.contains($0.key) }
        if blocks.isEmpty, Self.isUnchanged(metadata, since: books.onDisk) {
            books.matchedVersion = version
            return nil
        }
        // The changed blocks are summed from the file outside the entry lock: under
        // `persistLock` no drop can happen meanwhile, and new bytes only fill holes.
        var sums: [Int64: UInt32?] = [:]
        for block in blocks {
            let parts = snapshot.ranges.held(in: EntryState.blockRange(block))
            let sum: UInt32?
            do {
                sum = try BlockChecksum.sum(parts, in: file)
            } catch {
                locked { $0.state.summingFailed(blocks) }
                return .file(name: dataFileName, call: error.call, errno: error.code)
            }
            guard let sum else {
                // Summed again at the next write rather than left with a stale checksum.
                locked { $0.state.summingFailed(blocks) }
                return .file(name: dataFileName, call: "pread (file shorter than its index)", errno: EIO)
            }
            sums[block] = parts.isEmpty ? nil : sum
            metadata.checksums[block] = sums[block] ?? nil
        }
        metadata.checksums = metadata.checksums.filter { held.contains($0.key) }
        locked { $0.state.summed(sums) }
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
        // What was written may differ from the state it came from (checksums filtered and
        // summed): the next persist compares once and records the version then.
        books.matchedVersion = nil
        books.writes += 1
        return nil
    }

    /// Whether `metadata` says what the index on disk says, but for an access time less than
    /// ``accessTimeSlack`` apart; `false` when no index was written or loaded.
    private static func isUnchanged(_ metadata: ResourceMetadata, since onDisk: ResourceMetadata?) -> Bool {
        guard var onDisk, isWithinSlack(metadata.lastAccess, onDisk) else { return false }
        onDisk.lastAccess = metadata.lastAccess
        return metadata == onDisk
    }

    /// Whether `lastAccess` is less than ``accessTimeSlack`` from the access time `onDisk` says.
    private static func isWithinSlack(_ lastAccess: Double, _ onDisk: ResourceMetadata) -> Bool {
        abs(lastAccess - onDisk.lastAccess) < accessTimeSlack
    }

    /// The bytes of `wanted` (none when `needsBytes` is false: a prefetch), after checking the
    /// blocks it touches that were not checked since the index was loaded, and those not
    /// trusted under the data file's identity of now (``EntryState+Trust``); `nil` when one of
    /// them failed (its bytes are dropped, to be fetched again: plan again), or when the file
    /// changed behind the entry's back (everything it held is to be checked again: plan again).
    ///
    /// The check sums the bytes read for the answer, reading once the span of `wanted` and the
    /// held parts of those blocks: a first read after a restart used to read every checked
    /// block twice, once to check it and once to deliver it.
    func readChecked(_ wanted: Range<Int64>, generation: Int, needsBytes: Bool) throws -> Data? {
        guard let (pending, settled) = lookAtFile(checking: wanted) else { return nil }
        guard !pending.isEmpty else { return needsBytes ? try readFile(wanted, generation: generation) : Data() }
        let lower = min(wanted.lowerBound, pending.compactMap { $0.parts.first?.lowerBound }.min() ?? wanted.lowerBound)
        let upper = max(wanted.upperBound, pending.compactMap { $0.parts.last?.upperBound }.max() ?? wanted.upperBound)
        // Short when the file lost bytes its index holds (readFile then forgets them): a part
        // the bytes do not cover sums to nil, which fails its block.
        let span = try readFile(lower..<upper, generation: generation)
        for (block, expected, parts) in pending {
            let intact = BlockChecksum.sum(parts, in: span, at: lower) == expected
            if blockChecked(block, intact: intact, generation: generation, settled: settled) { return nil }
        }
        guard needsBytes else { return Data() }
        if lower == wanted.lowerBound, upper == wanted.upperBound { return span }  // no copy
        let from = span.startIndex + Int(wanted.lowerBound - lower)
        let to = min(span.endIndex, span.startIndex + Int(wanted.upperBound - lower))
        return from < to ? span.subdata(in: from..<to) : Data()
    }

    /// Records a block's check; `true` when it was damaged and its bytes were dropped.
    func blockChecked(_ block: Int64, intact: Bool, generation: Int, settled: FileIdentity? = nil) -> Bool {
        guard let dropped = locked({ $0.state.blockChecked(block, intact: intact, generation: generation, settled: settled) }) else { return false }
        if isStoring { ledger.release(dropped, for: key) }
        announce()
        return true
    }

    /// Looks at the data file's identity (`fstat`, under the lock, as the entry's own writes
    /// are): the blocks of `wanted` to check before their bytes go out, and the identity to
    /// trust them under once intact (`nil` while it is racy, or the file is absent); `nil` when
    /// the file changed behind the entry's back.
    func lookAtFile(checking wanted: Range<Int64>) -> (pending: [(block: Int64, expected: UInt32, parts: [Range<Int64>])], settled: FileIdentity?)? {
        let now = EntryState.nanoseconds(now())
        let (look, dropped) = locked { guarded -> ((pending: [(block: Int64, expected: UInt32, parts: [Range<Int64>])], settled: FileIdentity?)?, Int64) in
            guard let identity = try? guarded.file?.identity() else { return ((guarded.state.uncheckedBlocks(in: wanted), nil), 0) }
            let (changed, dropped) = guarded.state.observe(identity)
            if changed { return (nil, dropped) }
            return ((guarded.state.uncheckedBlocks(in: wanted, identity: identity), identity.isSettled(at: now) ? identity : nil), 0)
        }
        if dropped > 0 {
            if isStoring { ledger.release(dropped, for: key) }
            announce()
        }
        return look
    }
}
