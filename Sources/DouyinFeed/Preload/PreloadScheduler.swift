import DouyinVideoCache
import Foundation

/// The preloader's decisions as a pure state machine: fed the current item, the playing
/// video's buffer and each job's end, it returns which jobs to start and which to cancel.
/// ``FeedPreloader`` holds one behind a lock and performs the actions after unlocking.
///
/// Rules:
/// - The plan is ``PreloadPlanner/jobs(items:current:tails:configuration:)`` for the current item.
/// - Admission: until the playing video holds its watermark ahead of its read position (or is
///   held whole), no gated job runs and running ones are cancelled (their bytes stay cached);
///   then one runs at a time while the playing video still downloads, two once it is whole.
/// - A new current item re-plans at once: running jobs outside the new plan are cancelled.
/// - A finished video prefix whose boxes show `moov` after `mdat` adds the tail job.
/// - Statistics: bytes the jobs added to the video cache, bytes of those later read by the
///   player, bytes of items that left the window unread.
public struct PreloadScheduler: Sendable {
    /// Something for the performer to do.
    public enum Action: Sendable, Hashable {
        /// Start this job.
        case start(PreloadPlanner.Job)
        /// Cancel this running job; it reports its end with ``Outcome/cancelled(added:)``.
        case cancel(PreloadPlanner.Job)
    }

    /// How a job ended.
    public enum Outcome: Sendable, Hashable {
        /// It fetched what it was for; `added` are the video bytes it brought into the cache
        /// (empty for images), `layout` what a video prefix's boxes said.
        case completed(added: [Range<Int64>], layout: MP4Layout?)
        /// It was cancelled; `added` as above (those bytes stay cached).
        case cancelled(added: [Range<Int64>])
        /// It failed; not retried until the window moves.
        case failed(added: [Range<Int64>])
    }

    /// The playing video's buffer, as the performer reads it from the video cache.
    public struct PlayingBuffer: Sendable, Hashable {
        /// Where the player reads (bytes from the start).
        public var readPosition: Int64
        /// Bytes held contiguously from the read position.
        public var heldAhead: Int64
        /// Whether the whole file is held.
        public var isComplete: Bool
        /// The file's length, when known.
        public var length: Int64?

        /// A buffer snapshot.
        public init(readPosition: Int64, heldAhead: Int64, isComplete: Bool, length: Int64?) {
            self.readPosition = readPosition
            self.heldAhead = heldAhead
            self.isComplete = isComplete
            self.length = length
        }
    }

    /// How many preloads may run now.
    public enum Admission: Sendable, Hashable {
        /// None: the playing video is below its watermark.
        case closed
        /// ``PreloadPlanner/Configuration/concurrencyWhileDownloading`` at once.
        case whileDownloading
        /// ``PreloadPlanner/Configuration/concurrencyWhenComplete`` at once.
        case complete
    }

    /// Byte counts of the preloads so far.
    public struct Statistics: Sendable, Hashable {
        /// Video bytes the preloads brought into the cache.
        public var preloadedBytes: Int64 = 0
        /// Of those, bytes the player later read (below its furthest read position).
        public var playedBytes: Int64 = 0
        /// Of those, bytes of items that left the window (or the feed) without being read.
        public var wastedBytes: Int64 = 0
        /// Image jobs that fetched (or found) their file.
        public var imagesPreloaded: Int = 0
        /// Jobs cancelled because the window moved or admission closed.
        public var cancellations: Int = 0
        /// Jobs that failed: the fetch failed, or the cache could not keep what was fetched (a
        /// full or read-only disk, a damaged cache file, an index that could not be written).
        public var failures: Int = 0
    }

    /// The rules' numbers.
    public let configuration: PreloadPlanner.Configuration
    /// The feed's items.
    public private(set) var items: [FeedItem] = []
    /// The current (playing) item; `nil` before the first ``show(_:)``, and after
    /// ``setItems(_:current:)`` with an index outside the new items.
    public private(set) var current: Int?
    /// The jobs of the current window, in order.
    public private(set) var plan: [PreloadPlanner.Job] = []
    /// Jobs running now.
    public private(set) var running: Set<PreloadPlanner.Job> = []
    /// Jobs done (or failed) in this window.
    public private(set) var finished: Set<PreloadPlanner.Job> = []
    /// The admission now.
    public private(set) var admission: Admission = .closed
    /// Counts so far.
    public private(set) var statistics = Statistics()
    /// Jobs told to stop and not yet reported ended.
    private var cancelling: Set<PreloadPlanner.Job> = []
    /// Learned `moov` tails by video URL.
    private var tails: [URL: Range<Int64>] = [:]
    /// Per video URL: bytes preloaded and the furthest the player read.
    private var ledger: [URL: (preloaded: ByteRangeSet, readUpTo: Int64)] = [:]

    /// A scheduler with these rules; admission starts closed.
    public init(configuration: PreloadPlanner.Configuration = PreloadPlanner.Configuration()) {
        self.configuration = configuration
    }

    /// Replaces the feed (a new feed, or more pages appended) and shows `current`.
    ///
    /// A `current` outside the new items (an empty feed, a shorter one) leaves no current item
    /// (``current`` becomes `nil`): the plan empties, admission closes, every running job is
    /// cancelled and every preloaded byte not read counts as wasted, until ``show(_:)`` names an
    /// item. (It once kept the old index, which then pointed past the new items.)
    public mutating func setItems(_ items: [FeedItem], current: Int) -> [Action] {
        let keep = Set(items.compactMap(\.videoURL))
        if items != self.items {
            // Items of the old feed that are not in the new one: their preloads are settled.
            for url in ledger.keys where !keep.contains(url) { settle(url) }
            finished = []
        }
        self.items = items
        guard items.indices.contains(current) else { return leaveWindow() }
        return show(current)
    }

    /// No current item: nothing planned, nothing admitted, running jobs cancelled, every
    /// preload settled.
    private mutating func leaveWindow() -> [Action] {
        self.current = nil
        plan = []
        finished = []
        admission = .closed
        for url in ledger.keys { settle(url) }
        var actions: [Action] = []
        for job in running where !cancelling.contains(job) {
            cancelling.insert(job)
            actions.append(.cancel(job))
        }
        return actions
    }

    /// The current item changed (a swipe): admission closes until the new playing video holds
    /// its watermark, the plan is remade, running jobs outside it are cancelled.
    public mutating func show(_ index: Int) -> [Action] {
        guard items.indices.contains(index) else { return [] }
        if current != index {
            admission = .closed
        }
        current = index
        plan = PreloadPlanner.jobs(items: items, current: index, tails: tails, configuration: configuration)
        let planned = Set(plan)
        finished.formIntersection(planned)
        let windowURLs = Set(plan.map(\.url)).union(items[index].videoURL.map { [$0] } ?? [])
        for url in ledger.keys where !windowURLs.contains(url) { settle(url) }
        var actions: [Action] = []
        for job in running where !planned.contains(job) && !cancelling.contains(job) {
            cancelling.insert(job)
            actions.append(.cancel(job))
        }
        return actions + admit()
    }

    /// The playing video's buffer changed: opens admission at the watermark (or when the file
    /// is whole) and records how far the player read (for the played-bytes count).
    public mutating func playingBufferChanged(_ buffer: PlayingBuffer) -> [Action] {
        guard let current, let url = items[current].videoURL else { return [] }
        if var entry = ledger[url] {
            entry.readUpTo = max(entry.readUpTo, buffer.readPosition)
            ledger[url] = entry
        }
        let mark = PreloadPlanner.watermarkBytes(of: items[current], length: buffer.length, configuration: configuration)
        let next: Admission
        if buffer.isComplete {
            next = .complete
        } else if let mark, buffer.heldAhead >= mark {
            next = .whileDownloading
        } else {
            next = admission == .closed ? .closed : admission
        }
        // Admission only widens while one item plays: a player reading on past its buffer
        // makes its own requests, and preloads already granted keep their turn.
        if next != admission, rank(next) > rank(admission) { admission = next }
        return admit()
    }

    /// The current item has no video (or the app plays none): admission opens fully.
    public mutating func noPlayingVideo() -> [Action] {
        admission = .complete
        return admit()
    }

    /// A job ended.
    public mutating func jobEnded(_ job: PreloadPlanner.Job, _ outcome: Outcome) -> [Action] {
        guard running.remove(job) != nil else { return [] }
        let wasCancelled = cancelling.remove(job) != nil
        let added: [Range<Int64>]
        switch outcome {
        case .completed(let bytes, let layout):
            added = bytes
            finished.insert(job)
            if job.kind == .cover || job.kind == .avatar { statistics.imagesPreloaded += 1 }
            if configuration.fetchesMoovTail, job.kind == .videoPrefix, case .moovAtEnd(let tail)? = layout, tails[job.url] == nil {
                tails[job.url] = tail
                if plan.contains(job), let position = plan.firstIndex(of: job) {
                    plan.insert(PreloadPlanner.Job(index: job.index, kind: .videoTail, url: job.url, range: tail), at: position + 1)
                }
            }
        case .cancelled(let bytes):
            added = bytes
            statistics.cancellations += 1
        case .failed(let bytes):
            added = bytes
            finished.insert(job)
            statistics.failures += 1
        }
        _ = wasCancelled
        if !added.isEmpty {
            var entry = ledger[job.url] ?? (ByteRangeSet(), 0)
            for range in added where !range.isEmpty {
                let before = entry.preloaded.byteCount
                entry.preloaded.insert(range)
                statistics.preloadedBytes += entry.preloaded.byteCount - before
            }
            ledger[job.url] = entry
            // Bytes preloaded for an item no longer in the window are settled at once.
            if !plan.contains(where: { $0.url == job.url }), current.flatMap({ items[$0].videoURL }) != job.url { settle(job.url) }
        }
        return admit()
    }

    /// Statistics with the bytes read so far by items still in the window counted as played.
    public var currentStatistics: Statistics {
        var snapshot = statistics
        for entry in ledger.values { snapshot.playedBytes += Self.played(entry) }
        return snapshot
    }

    // MARK: Internals

    private func rank(_ admission: Admission) -> Int {
        switch admission {
        case .closed: 0
        case .whileDownloading: 1
        case .complete: 2
        }
    }

    private var limit: Int {
        switch admission {
        case .closed: 0
        case .whileDownloading: max(0, configuration.concurrencyWhileDownloading)
        case .complete: max(0, configuration.concurrencyWhenComplete)
        }
    }

    /// Starts the first pending jobs the admission allows; cancels gated ones beyond it.
    private mutating func admit() -> [Action] {
        guard let current else { return [] }
        var actions: [Action] = []
        let active = running.subtracting(cancelling)
        var gatedRunning = plan.filter { active.contains($0) && $0.isGated(current: current) }
        // Over the limit (the window moved and admission closed): stop the farthest first.
        while gatedRunning.count > limit, let job = gatedRunning.popLast() {
            cancelling.insert(job)
            actions.append(.cancel(job))
        }
        var slots = limit - gatedRunning.count
        for job in plan where !running.contains(job) && !finished.contains(job) {
            if job.isGated(current: current) {
                guard slots > 0 else { continue }
                slots -= 1
            }
            running.insert(job)
            actions.append(.start(job))
        }
        return actions
    }

    private static func played(_ entry: (preloaded: ByteRangeSet, readUpTo: Int64)) -> Int64 {
        entry.preloaded.ranges.reduce(0) { total, range in
            total + max(0, min(range.upperBound, entry.readUpTo) - range.lowerBound)
        }
    }

    /// An item left the window: its preloaded bytes count as played up to where it was read,
    /// the rest as wasted.
    private mutating func settle(_ url: URL) {
        guard let entry = ledger.removeValue(forKey: url) else { return }
        let played = Self.played(entry)
        statistics.playedBytes += played
        statistics.wastedBytes += entry.preloaded.byteCount - played
    }
}
