import Foundation

/// Downloads: listing them, what an origin's answer means for the stored bytes, storing chunks.
extension EntryState {

    /// Lists a download from `position` (missing, not covered) through the gap and any small
    /// held gaps after it, stopping where the next download is.
    mutating func listDownload(at position: Int64, upTo upper: Int64) -> Int {
        let gaps = ranges.missing(in: position..<upper)
        var end = gaps[0].upperBound
        for gap in gaps.dropFirst() {
            guard gap.lowerBound - end < tuning.coalescingGap else { break }
            end = gap.upperBound
        }
        // A download that has reached its end fetches nothing more (its task may not have
        // been removed yet): its bytes are held, so the new one may run over them.
        for download in downloads.values where download.position > position && download.position < download.end {
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
        // The first answer after a remove is compared with what the removed version was.
        defer { removedInfo = nil }
        guard let old = info ?? removedInfo, validatorFailed || shorterThanHeld || old.differs(from: newInfo) else {
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

    /// Records that `useful` (planned by ``planChunk(_:for:)``) is on disk; the readers it
    /// completes are then ready (``takeReadyWaiters()``).
    mutating func stored(_ useful: Range<Int64>, for id: Int) {
        ranges.insert(useful)
        dirty.formUnion(Self.blocks(of: useful))
        downloads[id]?.position = useful.upperBound
        unpersisted += Int64(useful.count)
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
    ///
    /// What the origin said goes too (kept aside in ``removedInfo``): the next read starts a
    /// fresh version, asking without the old validator and unclipped by the old length. Kept,
    /// the old length cut the next reader's answer (the proxy's whole GET) to the old size
    /// whatever the origin now holds. The epoch stays: a read mid-way goes on if the origin
    /// still has the same version, and says `changed` if not.
    mutating func dropAll() -> (droppedBytes: Int64, cancel: [Task<Void, Never>]) {
        let dropped = ranges.byteCount
        generation += 1
        forgetStoredBytes()
        if let info { removedInfo = info }
        info = nil
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

    mutating func forgetStoredBytes() {
        ranges = ByteRangeSet()
        checksums = [:]
        dirty = []
        unverified = [:]
        trust = FileTrust()
    }
}
