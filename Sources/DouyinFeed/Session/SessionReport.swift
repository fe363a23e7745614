import DouyinSupport
import DouyinVideoCache
import Foundation

/// What a replayed session measured: one ``View`` a swipe, the origin's bytes, and the
/// figures `douyinkit feed session` prints and the bench tabulates.
public struct SessionReport: Sendable, Hashable {
    /// One swipe's view.
    public struct View: Sendable, Hashable {
        /// The swipe's number, from 1.
        public var number: Int
        /// The item shown.
        public var item: Int
        /// When it was shown, Unix time in milliseconds.
        public var shownAtUnixMilliseconds: Int64
        /// The gear file played.
        public var url: URL
        /// Its bitrate, bits per second.
        public var bitRate: Int
        /// From shown to started; the whole watch time when it never started.
        public var start: Duration
        /// Whether it started before the swipe away.
        public var started: Bool
        /// Time the read position waited at the end of the bytes held.
        public var stall: Duration
        /// From shown to the next swipe.
        public var watch: Duration
        /// Bytes the player consumed: up to its read position, plus the `moov` tail if any.
        public var playedBytes: Int64

        /// A view from its parts.
        package init(number: Int, item: Int, shownAtUnixMilliseconds: Int64, url: URL, bitRate: Int, start: Duration, started: Bool,
                     stall: Duration, watch: Duration, playedBytes: Int64) {
            self.number = number
            self.item = item
            self.shownAtUnixMilliseconds = shownAtUnixMilliseconds
            self.url = url
            self.bitRate = bitRate
            self.start = start
            self.started = started
            self.stall = stall
            self.watch = watch
            self.playedBytes = playedBytes
        }

        /// ``start`` in whole milliseconds, as ``line`` prints it and every figure of the report
        /// counts it (fractions dropped).
        public var startMilliseconds: Int64 { start.wholeMilliseconds }

        /// ``stall`` in whole milliseconds, as ``line`` prints it and ``SessionReport/stallTime``
        /// adds it up (fractions dropped).
        public var stallMilliseconds: Int64 { stall.wholeMilliseconds }

        /// Whether it was ready at the swipe: started, with a printed start of at most 10 ms.
        public var isReady: Bool { started && startMilliseconds <= 10 }

        /// `swipe <n> item=<k> at_ms=<unix ms> url=<gear url> start_ms=<ms> stall_ms=<ms> played_bytes=<n>`.
        public var line: String {
            "swipe \(number) item=\(item) at_ms=\(shownAtUnixMilliseconds) url=\(url.absoluteString) start_ms=\(startMilliseconds)"
                + " stall_ms=\(stallMilliseconds) played_bytes=\(playedBytes)"
        }
    }

    /// The views in order.
    public var views: [View]
    /// Body bytes received from the origin, cancelled responses included.
    public var originBytes: Int64
    /// Bytes received for a range of a URL that had arrived before.
    public var duplicateBytes: Int64
    /// Bytes received that no view played (duplicates included).
    public var unplayedBytes: Int64
    /// Of ``unplayedBytes``, those of items no view showed (a window or reach the viewer
    /// never got to); 0 when every file fetched was shown.
    public var unplayedOfItemsNotShown: Int64 = 0
    /// Of ``unplayedBytes``, those of a gear file other than the one its item was shown at
    /// (chosen again, or switched down at the swipe); 0 when there were none. What is left of
    /// ``unplayedBytes`` after these two lies in files that were shown: bytes ahead of the
    /// read position at a swipe, and duplicates.
    public var unplayedOfOtherGears: Int64 = 0
    /// Items whose preload gear was dropped at playback because it would have stalled.
    public var gearSwitches: Int
    /// Bytes of the playing item's transfers (requests for the gear on screen, sent while it
    /// was), after each response's first chunk: with ``playingTransferTime``, the throughput
    /// the playing video got. 0 when none was made.
    public var playingTransferBytes: Int64 = 0
    /// The time those bytes took, first to last chunk of each response (the wait for the first
    /// byte not counted); zero when none was made.
    public var playingTransferTime: Duration = .zero

    /// The throughput the playing video got, bytes per second while its transfers flowed;
    /// `nil` when no transfer of a playing item took measurable time.
    public var playingThroughput: Double? {
        playingTransferTime > .zero ? Double(playingTransferBytes) / playingTransferTime.inSeconds : nil
    }

    /// A report from its parts.
    public init(views: [View], originBytes: Int64, duplicateBytes: Int64, unplayedBytes: Int64, gearSwitches: Int) {
        self.views = views
        self.originBytes = originBytes
        self.duplicateBytes = duplicateBytes
        self.unplayedBytes = unplayedBytes
        self.gearSwitches = gearSwitches
    }

    /// Views that were ready (start ≤ 10 ms).
    public var readyCount: Int { views.filter(\.isReady).count }

    /// The nearest-rank `percent` percentile of the printed start times (whole milliseconds)
    /// over swipes 2...N (the first is a cold start); zero with fewer than two swipes.
    public func startPercentile(_ percent: Double) -> Duration {
        let starts = views.dropFirst().map { Duration.milliseconds($0.startMilliseconds) }.sorted()
        guard !starts.isEmpty else { return .zero }
        let rank = Int((min(100, max(0, percent)) / 100 * Double(starts.count)).rounded(.up))
        return starts[max(0, rank - 1)]
    }

    /// Ready share of forward swipes 2...N (a backward swipe finds its item held anyway).
    public var forwardReadyShare: Double {
        let pairs = zip(views, views.dropFirst()).filter { $1.item > $0.item || $1.item == 0 && $0.item != 0 }
        guard !pairs.isEmpty else { return 0 }
        return Double(pairs.filter { $1.isReady }.count) / Double(pairs.count)
    }

    /// The total stall time: the sum of the stalls the lines print, so a reader who adds the
    /// lines gets the summary (a sum of the unrounded stalls said 75 ms where the lines said 68).
    public var stallTime: Duration { .milliseconds(views.reduce(0) { $0 + $1.stallMilliseconds }) }

    /// The total watch time.
    public var watchTime: Duration { views.reduce(.zero) { $0 + $1.watch } }

    /// Bytes played in all.
    public var playedBytes: Int64 { views.reduce(0) { $0 + $1.playedBytes } }

    /// The bitrate of what played, weighted by the time it played; 0 when nothing did.
    public var weightedBitRate: Double {
        var weighted = 0.0, total = 0.0
        for view in views where view.started {
            let playing = max(0, (view.watch - view.start - view.stall).inSeconds)
            weighted += Double(view.bitRate) * playing
            total += playing
        }
        return total > 0 ? weighted / total : 0
    }

    /// `summary swipes=N ready=R start_p50_ms=X start_p95_ms=Y stall_ms=Z origin_bytes=O played_bytes=P`,
    /// every figure computed from the numbers the views' lines print.
    public var summaryLine: String {
        "summary swipes=\(views.count) ready=\(readyCount) start_p50_ms=\(startPercentile(50).wholeMilliseconds)"
            + " start_p95_ms=\(startPercentile(95).wholeMilliseconds) stall_ms=\(stallTime.wholeMilliseconds)"
            + " origin_bytes=\(originBytes) played_bytes=\(playedBytes)"
    }
}
