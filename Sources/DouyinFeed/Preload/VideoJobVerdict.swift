import DouyinVideoCache

/// What a video preload job did, decided from what the cache holds once it ended: the rule
/// that keeps `source=cached` and `source=network` honest. Pure; ``FeedPreloader`` gathers the
/// facts and reports the verdict.
///
/// - A job is done only when every byte it was for (its range, clipped to the resource's
///   length) is held *and* the index describing them is on disk: `cached` when none was
///   fetched, `network` when some were.
/// - Another process holding the entry is not a failure: that process stores the bytes; this
///   one fetched them without storing, and says `uncached` with the reason (0 bytes held).
/// - Anything else that left bytes unheld is a failure naming why: the fetch failed, the disk
///   refused the bytes (full, read-only, a file name taken by a link, FIFO or directory), the
///   index could not be written, or the bytes were dropped (a new version, an eviction).
package enum VideoJobVerdict: Equatable, Sendable {
    /// All the job's bytes are held and indexed; `fetched`: some came from the network.
    case held(bytes: Int64, fetched: Bool)
    /// Fetched without storing: another process holds the entry.
    case uncached(reason: String)
    /// Not done; why.
    case failed(reason: String)

    /// The verdict on a job for `range` of a resource of `length` bytes (`nil`: unknown), whose
    /// cache held `before` when it started and `after` once it ended; `fetchError` is what the
    /// fetch threw, `uncached` why the cache stopped storing (if it did), `persistError` what
    /// writing the index threw.
    package static func decide(range: Range<Int64>, length: Int64?, before: ByteRangeSet, after: ByteRangeSet,
                               fetchError: (any Error)?, uncached: VideoCacheError?, persistError: VideoCacheError?) -> VideoJobVerdict {
        if let fetchError { return .failed(reason: "\(fetchError)") }
        // Bytes past the end of a shorter resource are not wanted.
        let wanted = length.map { range.clamped(to: 0..<max(0, $0)) } ?? range
        if after.contains(wanted) {
            if let persistError { return .failed(reason: "\(persistError)") }
            let fetched = after.ranges.contains { held in !before.missing(in: held.clamped(to: wanted)).isEmpty }
            return .held(bytes: Int64(wanted.count), fetched: fetched)
        }
        if let uncached {
            if uncached == .entryInUseElsewhere { return .uncached(reason: uncached.description) }
            return .failed(reason: "\(uncached)")
        }
        if let persistError { return .failed(reason: "\(persistError)") }
        let held = after.ranges.reduce(Int64(0)) { $0 + Int64($1.clamped(to: wanted).count) }
        return .failed(reason: "only \(held) of \(wanted.count) bytes are held after the preload (dropped meanwhile)")
    }
}
