import DouyinSupport
import Foundation

/// Reads one resource's bytes through a ``VideoCache``; many readers of one resource share
/// its downloads. Close it when done; a closed reader's reads throw `cancelled`.
public final class VideoReader: Sendable {
    /// The URL this reader fetches from (its entry may be shared with other URLs of one key).
    public let url: URL
    private let entry: ResourceEntry
    private let ledger: StorageLedger
    private let reads = LockedBox(Reads())

    init(entry: ResourceEntry, url: URL, ledger: StorageLedger) {
        self.entry = entry
        self.url = url
        self.ledger = ledger
    }

    deinit {
        close()
    }

    /// Runs one delivery as a read that ``close()`` can cancel.
    private static func run(_ range: Range<Int64>, entry: ResourceEntry, url: URL, reads: LockedBox<Reads>, maxChunk: Int = .max,
                            continuing: Int? = nil, restart: (() -> Void)? = nil, to sink: ((Data) throws -> Void)?) async throws {
        let token = entry.beginRead()
        guard reads.withLock({ $0.add(token) }) else {
            entry.cancelRead(token)
            throw VideoCacheError.cancelled
        }
        defer { reads.withLock { _ = $0.tokens.remove(token) } }
        try await entry.deliver(range, token: token, from: url, maxChunk: maxChunk, continuing: continuing, restart: restart, to: sink)
    }

    /// What the origin says about the resource, asking it (for the first two bytes, as players
    /// do) when nothing is known yet.
    public func contentInfo() async throws -> VideoContentInfo {
        if let info = entry.info, info.length != nil { return info }
        try await prefetch(0..<2)
        guard let info = entry.info else { throw VideoCacheError.invalidResponse("no content info") }
        return info
    }

    /// The bytes of `range`, clipped to the resource's length (a range past the end gives
    /// fewer bytes, or none). All of one version: should the origin's file change during the
    /// read, the read starts over and returns the new version's bytes.
    public func read(_ range: Range<Int64>) async throws -> Data {
        entry.touch()
        var result = Data()
        var reserved = false
        // A range that arrives as one piece (the usual case for bytes already held) is returned
        // as that piece, without a copy; later pieces append into room for the whole answer,
        // made once its size is known, so the buffer does not regrow.
        // Nothing is handed on before the end, so a changed resource restarts the read.
        let restart = {
            result = Data()
            reserved = false
        }
        try await Self.run(range, entry: entry, url: url, reads: reads, restart: restart) { [entry] piece in
            if result.isEmpty {
                result = piece
                return
            }
            if !reserved, let length = entry.info?.length {
                result.reserveCapacity(Int(clamping: max(0, min(range.upperBound, length) - range.lowerBound)))
                reserved = true
            }
            result.append(piece)
        }
        return result
    }

    /// The bytes of `range` as they arrive, in order, in chunks of at most `chunkSize`, so
    /// playback can start before the range is complete. Ending the iteration early stops the
    /// fetches nobody else needs. Should the origin's file change after chunks of the old
    /// version went out, the stream ends with ``VideoCacheError/resourceChanged(url:)``, never
    /// with bytes of the new version.
    public func chunks(_ range: Range<Int64>, chunkSize: Int = 256 * 1024) -> AsyncThrowingStream<Data, any Error> {
        chunks(range, chunkSize: chunkSize, continuing: nil)
    }

    /// ``chunks(_:chunkSize:)`` after bytes of epoch `continuing` (`nil`: none) went out
    /// another way (``sendVerified(_:over:deadline:)``): should the resource's version have
    /// moved on, the stream ends with ``VideoCacheError/resourceChanged(url:)`` before any byte.
    package func chunks(_ range: Range<Int64>, chunkSize: Int = 256 * 1024, continuing: Int?) -> AsyncThrowingStream<Data, any Error> {
        let entry = entry
        let reads = reads
        let url = url
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    entry.touch()
                    try await Self.run(range, entry: entry, url: url, reads: reads, maxChunk: max(1, chunkSize), continuing: continuing) {
                        continuation.yield($0)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends the held bytes of `range` that were checked under the data file's unchanged
    /// identity straight from the file to `connection` (`sendfile(2)`), stopping at the first
    /// byte that is not; returns how many went out from `range.lowerBound` on and the epoch
    /// they belong to (`nil`: none went out), for ``chunks(_:chunkSize:continuing:)`` to go on
    /// from. Each piece must go out by `deadline` (evaluated per piece).
    package func sendVerified(_ range: Range<Int64>, over connection: TCPConnection,
                              deadline: @autoclosure () -> ContinuousClock.Instant) async throws -> (bytes: Int64, epoch: Int?) {
        guard reads.withLock({ $0.open }) else { throw VideoCacheError.cancelled }
        entry.touch()
        let sent = try await entry.sendVerified(range, over: connection, epoch: nil, deadline: deadline())
        return (sent.bytes, sent.epoch)
    }

    /// Fetches whatever of `range` is missing into the cache without returning it.
    public func prefetch(_ range: Range<Int64>) async throws {
        try await Self.run(range, entry: entry, url: url, reads: reads, to: nil)
    }

    /// What the origin said about the resource as far as this cache knows it, without asking
    /// (``contentInfo()`` asks when nothing is known); `nil` before any answer or index.
    public var knownContentInfo: VideoContentInfo? { entry.info }

    /// The ranges of this resource held on disk now.
    public var cachedRanges: ByteRangeSet { entry.ranges }

    /// Why this reader's fetched bytes are not being stored, `nil` while they are: another
    /// process holds the entry (it is read uncached meanwhile), the cache directory is
    /// read-only (held bytes are served, the rest fetched uncached), the disk failed or filled.
    public var uncachedReason: String? { entry.uncachedError?.description }

    /// The error behind ``uncachedReason``: ``VideoCacheError/file(name:call:errno:)`` keeps the
    /// failed call and its `errno` (`ENOSPC` for a full disk); `nil` while bytes are stored.
    public var uncachedError: VideoCacheError? { entry.uncachedError }

    /// Makes the bytes this resource holds durable now: fsyncs its data file and writes its
    /// index, so a restart (or another process) finds them. Nothing is written when nothing
    /// changed since the last write; nothing either while the entry stores nothing
    /// (``uncachedError`` says why). ``close()`` does the same, without the error.
    ///
    /// - Throws: ``VideoCacheError/file(name:call:errno:)`` naming the call that failed
    ///   (`fsync`, the index's `open`/`pwrite`/`rename`; `ENOSPC` for a full disk): the bytes
    ///   held in memory are then not described by any index on disk.
    public func persist() throws(VideoCacheError) {
        if let failure = entry.persist() { throw failure }
    }

    /// Whether ``close()`` may write the index now (bytes stored or checked since the last
    /// write): a close that does fsyncs, which a caller on a thread others wait for runs
    /// elsewhere. A guess: the close decides again.
    package var closeWouldWrite: Bool { entry.persistWouldWrite }

    /// Ends this reader: reads still running throw `cancelled` and stop the fetches nobody
    /// else needs, the index is made durable, and the resource may be evicted again.
    public func close() {
        guard let running = reads.withLock({ $0.close() }) else { return }
        for token in running { entry.cancelRead(token) }
        entry.persist()
        ledger.releaseUse(entry.key)
    }
}

/// A reader's running reads, and whether it is still open.
private struct Reads {
    var open = true
    var tokens: Set<Int> = []

    /// Records a read; `false` if the reader is closed.
    mutating func add(_ token: Int) -> Bool {
        guard open else { return false }
        tokens.insert(token)
        return true
    }

    /// Closes; the reads still running, or `nil` if it was closed already.
    mutating func close() -> Set<Int>? {
        guard open else { return nil }
        open = false
        return tokens
    }
}
