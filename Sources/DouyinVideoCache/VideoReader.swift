import Foundation

/// Reads one resource's bytes through a ``VideoCache``; many readers of one resource share
/// its downloads. Close it when done; a closed reader's reads throw `cancelled`.
public final class VideoReader: Sendable {
    private let entry: ResourceEntry
    private let ledger: StorageLedger
    private let isOpen = OpenFlag()

    init(entry: ResourceEntry, ledger: StorageLedger) {
        self.entry = entry
        self.ledger = ledger
    }

    deinit {
        close()
    }

    /// The resource's URL.
    public var url: URL { entry.url }

    /// What the origin says about the resource, asking it (for the first two bytes, as players
    /// do) when nothing is known yet.
    public func contentInfo() async throws -> VideoContentInfo {
        if let info = entry.info, info.length != nil { return info }
        try await prefetch(0..<2)
        guard let info = entry.info else { throw VideoCacheError.invalidResponse("no content info") }
        return info
    }

    /// The bytes of `range`, clipped to the resource's length (a range past the end gives
    /// fewer bytes, or none).
    public func read(_ range: Range<Int64>) async throws -> Data {
        try checkOpen()
        entry.touch()
        var result = Data()
        result.reserveCapacity(Int(min(Int64(range.count), 64 << 20)))
        try await entry.deliver(range) { result.append($0) }
        return result
    }

    /// The bytes of `range` as they arrive, in order, in chunks of at most `chunkSize`, so
    /// playback can start before the range is complete. Ending the iteration early stops the
    /// fetches nobody else needs.
    public func chunks(_ range: Range<Int64>, chunkSize: Int = 256 * 1024) -> AsyncThrowingStream<Data, any Error> {
        let entry = entry
        let isOpen = isOpen
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    guard isOpen.value else { throw VideoCacheError.cancelled }
                    entry.touch()
                    try await entry.deliver(range, maxChunk: max(1, chunkSize)) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Fetches whatever of `range` is missing into the cache without returning it.
    public func prefetch(_ range: Range<Int64>) async throws {
        try checkOpen()
        try await entry.deliver(range, to: nil)
    }

    /// The ranges of this resource held on disk now.
    public var cachedRanges: ByteRangeSet { entry.ranges }

    /// Ends this reader: its index is made durable and its resource may be evicted again.
    public func close() {
        guard isOpen.close() else { return }
        entry.persist()
        ledger.releaseUse(entry.key)
    }

    private func checkOpen() throws {
        guard isOpen.value else { throw VideoCacheError.cancelled }
    }
}

/// Whether a reader is still open; closing happens once.
private final class OpenFlag: @unchecked Sendable {
    // @unchecked Sendable: `open` is only touched under `lock`.
    private let lock = NSLock()
    private var open = true

    var value: Bool { lock.withLock { open } }

    /// Closes; `true` only for the call that did it.
    func close() -> Bool {
        lock.withLock {
            defer { open = false }
            return open
        }
    }
}
