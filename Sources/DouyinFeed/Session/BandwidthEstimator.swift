import DouyinSupport
import Foundation

/// The bandwidth meter's arithmetic, pure: transfers start and end and bytes arrive at given
/// times (offsets on any clock); the estimate is a weighted median of recent samples, with a
/// warm start until enough has been seen.
///
/// The idea is Media3's `DefaultBandwidthMeter` (a sliding percentile over samples weighted by
/// the square root of their bytes, trusted after 2 s or 512 KiB); the rules for what makes a
/// sample are this package's own, for a link every download of a session shares:
/// - a sample covers the time bytes flow while at least one transfer is open, from the first
///   chunk that arrives (its own bytes came before that instant, so they are not counted) —
///   the time before a first byte is latency, not bandwidth (40 ms of it would halve a small
///   transfer's rate);
/// - it closes when the last open transfer ends, or once it spans ``Configuration/sampleSpan``
///   (the next one opens at that instant), so a long read gives many samples.
public struct BandwidthEstimator: Sendable, Hashable {
    /// The meter's numbers.
    public struct Configuration: Sendable, Hashable {
        /// Bits per second answered before enough has been seen (the warm start): 2,000,000 by
        /// default; give the previous session's estimate here to start from it.
        public var initialEstimate: Int64 = 2_000_000
        /// Measured transfer time after which the samples are trusted: 2 s by default.
        public var trustAfterTime: Duration = .seconds(2)
        /// Measured bytes after which the samples are trusted: 524,288 (512 KiB) by default.
        public var trustAfterBytes: Int64 = 512 * 1024
        /// The longest time one sample spans: 250 ms by default.
        public var sampleSpan: Duration = .milliseconds(250)
        /// The sliding window's total weight (square roots of bytes): 2,000 by default.
        public var maxWeight: Double = 2000
        /// The percentile answered: 0.5 (the weighted median) by default.
        public var percentile: Double = 0.5

        /// The defaults.
        public init() {}
    }

    /// The numbers in use.
    public let configuration: Configuration
    private var window: SlidingPercentile
    private var openTransfers = 0
    private var sampleStart: Duration?
    private var sampleBytes: Int64 = 0
    /// The time covered by closed samples.
    public private(set) var measuredTime: Duration = .zero
    /// The bytes counted by closed samples (opening chunks are not counted).
    public private(set) var measuredBytes: Int64 = 0
    /// The samples closed so far.
    public private(set) var sampleCount = 0

    /// A meter that has seen nothing.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        window = SlidingPercentile(maxWeight: configuration.maxWeight)
    }

    /// Whether enough has been measured for ``estimate`` to be the samples' percentile rather
    /// than the warm start.
    public var isTrusted: Bool {
        sampleCount > 0 && (measuredTime >= configuration.trustAfterTime || measuredBytes >= configuration.trustAfterBytes)
    }

    /// The estimate in bits per second: the samples' percentile once ``isTrusted``, else
    /// ``Configuration/initialEstimate``.
    public var estimate: Int64 {
        guard isTrusted, let value = window.percentile(configuration.percentile) else { return configuration.initialEstimate }
        return Int64(min(Double(Int64.max / 2), max(1, value)))
    }

    /// A transfer opened at `time` (its request went out).
    public mutating func transferStarted(at time: Duration) {
        openTransfers += 1
    }

    /// `count` body bytes arrived at `time`, on any open transfer.
    public mutating func bytesReceived(_ count: Int64, at time: Duration) {
        guard count > 0 else { return }
        guard let start = sampleStart else {
            // The opening chunk marks when bytes began to flow; they arrived before it.
            sampleStart = time
            return
        }
        sampleBytes += count
        if time - start >= configuration.sampleSpan { closeSample(at: time, reopen: true) }
    }

    /// A transfer ended at `time` (finished, failed or cancelled).
    public mutating func transferEnded(at time: Duration) {
        openTransfers = max(0, openTransfers - 1)
        if openTransfers == 0 { closeSample(at: time, reopen: false) }
    }

    private mutating func closeSample(at time: Duration, reopen: Bool) {
        guard let start = sampleStart else { return }
        let elapsed = time - start
        if elapsed > .zero, sampleBytes > 0 {
            window.add(Double(sampleBytes) * 8 / elapsed.inSeconds, weight: Double(sampleBytes).squareRoot())
            measuredTime += elapsed
            measuredBytes += sampleBytes
            sampleCount += 1
        }
        sampleStart = reopen ? time : nil
        sampleBytes = 0
    }
}
