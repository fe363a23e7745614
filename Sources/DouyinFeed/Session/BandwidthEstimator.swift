import DouyinSupport
import Foundation

/// The bandwidth meter's arithmetic, pure: transfers start and end and bytes arrive at given
/// times (offsets on any clock); the estimate is a weighted median of recent samples, with a
/// warm start until enough has been seen.
///
/// The idea is Media3's `DefaultBandwidthMeter` (a sliding percentile over samples weighted by
/// the square root of their bytes, trusted after enough was measured); the rules for what makes a
/// sample are this package's own, for a link every download of a session shares:
/// - a sample covers the time bytes flow while at least one transfer is open, from the first
///   chunk that arrives (its own bytes came before that instant, so they are not counted) —
///   the time before a first byte is latency, not bandwidth (40 ms of it would halve a small
///   transfer's rate);
/// - it closes when any transfer ends — another one still open may be waiting for its first
///   byte, and that wait is not bandwidth either (the next chunk opens a new sample) — or once
///   it spans ``Configuration/sampleSpan`` (the next one opens at that instant), so a long
///   read gives many samples.
///
/// A median forgets a drop only once half its window is new, so a fast mean of the latest
/// samples (``Configuration/recentWeight``) caps it once the latest samples all lie at or below
/// the window's lower quartile (``Configuration/dropSamples`` of them): a link that falls is
/// believed within two or three samples, one that recovers once the median sees it. One low
/// sample is the link's own noise (a quarter of samples are that low), and capping by the fast
/// mean always (the lower of the two) read a steady 4 Mbit/s link 5–25 % low about half the
/// time, and cost the session its top gear.
///
/// Each response's time to its head (``responseTimed(_:)``) is learned apart from the
/// bandwidth, as TCP learns a round trip (RFC 6298): a smoothed mean and a mean deviation,
/// whose ``latencyBound`` is what a request's first byte can be expected to take at worst.
public struct BandwidthEstimator: Sendable, Hashable {
    /// The meter's numbers.
    public struct Configuration: Sendable, Hashable {
        /// Bits per second answered before enough has been seen (the warm start): 2,000,000 by
        /// default; give the previous session's estimate here to start from it.
        public var initialEstimate: Int64 = 2_000_000
        /// Measured transfer time after which the samples are trusted: 1 s by default (half
        /// Media3's: a session's gears are chosen for the first items of the window within its
        /// first second, and the throughput's spread guards a young estimate).
        public var trustAfterTime: Duration = .seconds(1)
        /// Measured bytes after which the samples are trusted: 262,144 (256 KiB) by default.
        public var trustAfterBytes: Int64 = 256 * 1024
        /// The longest time one sample spans: 250 ms by default.
        public var sampleSpan: Duration = .milliseconds(250)
        /// The sliding window's total weight (square roots of bytes): 8,000 by default, about
        /// 25 samples of 250 ms at 4 Mbit/s (6 s of transfer). Media3's 2,000 weighs whole
        /// transfers; over 250 ms samples it kept six or eight, whose median swung ±25 % on a
        /// steady link. A drop does not wait for it: the fast mean caps it.
        public var maxWeight: Double = 8000
        /// The percentile answered: 0.5 (the weighted median) by default.
        public var percentile: Double = 0.5
        /// How much the latest sample counts in the fast mean that caps the percentile (0...1):
        /// 0.5 by default. 0 turns the cap off.
        public var recentWeight: Double = 0.5
        /// How many of the latest samples must all lie at or below the window's lower quartile
        /// for the fast mean to cap the estimate: 2 by default (one alone is that low a
        /// quarter of the time; two in a row, a sixteenth, on a link that did not change).
        public var dropSamples = 2
        /// The time to a response's head assumed before one is measured: 100 ms by default.
        public var initialLatency: Duration = .milliseconds(100)

        /// The defaults.
        public init() {}
    }

    /// The numbers in use.
    public let configuration: Configuration
    private var window: SlidingPercentile
    /// Transfers started and not yet ended.
    public private(set) var openTransfers = 0
    private var sampleStart: Duration?
    private var sampleBytes: Int64 = 0
    /// The time covered by closed samples.
    public private(set) var measuredTime: Duration = .zero
    /// The bytes counted by closed samples (opening chunks are not counted).
    public private(set) var measuredBytes: Int64 = 0
    /// The samples closed so far.
    public private(set) var sampleCount = 0
    /// The fast mean of the latest samples, bits per second; `nil` before the first.
    public private(set) var recentRate: Double?
    /// How far the window's samples spread, as a share of their median: the weighted
    /// interquartile range over the median (robust to a few odd samples, weighted as the
    /// estimate is); 0.5 while the samples are not ``isTrusted`` (a link not yet known is not
    /// trusted to be steady).
    public var spread: Double {
        guard isTrusted, let median = window.percentile(0.5), median > 0,
              let low = window.percentile(0.25), let high = window.percentile(0.75) else { return 0.5 }
        return min(1, max(0, (high - low) / median))
    }
    /// The smoothed time to a response's head; `nil` before one was measured.
    public private(set) var smoothedLatency: Duration?
    /// The mean deviation of the time to a response's head; zero before one was measured.
    public private(set) var latencyDeviation: Duration = .zero
    /// Responses whose time to head was learned.
    public private(set) var latencyCount = 0

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

    /// The estimate in bits per second, once ``isTrusted``: the samples' percentile, capped
    /// by the fast mean of the latest ones when ``Configuration/dropSamples`` in a row are at or
    /// below the window's lower quartile (a drop, not noise); before,
    /// ``Configuration/initialEstimate``.
    public var estimate: Int64 {
        guard isTrusted, var value = window.percentile(configuration.percentile) else { return configuration.initialEstimate }
        if configuration.recentWeight > 0, let recentRate, let lowerQuartile = window.percentile(0.25) {
            let latest = window.samples.suffix(max(1, configuration.dropSamples))
            if latest.count == max(1, configuration.dropSamples), latest.allSatisfy({ $0.value <= lowerQuartile }) {
                value = min(value, recentRate)
            }
        }
        return Int64(min(Double(Int64.max / 2), max(1, value)))
    }

    /// The time to a response's head: the smoothed mean once one was measured, else
    /// ``Configuration/initialLatency``.
    public var latency: Duration { smoothedLatency ?? configuration.initialLatency }

    /// The time to a response's head to plan for at worst: ``latency`` plus four mean
    /// deviations (RFC 6298's retransmission bound), ``Configuration/initialLatency`` before
    /// any was measured.
    public var latencyBound: Duration {
        guard let smoothedLatency else { return configuration.initialLatency }
        return smoothedLatency + latencyDeviation * 4
    }

    /// A response's head came `elapsed` after its request went out.
    public mutating func responseTimed(_ elapsed: Duration) {
        let sample = max(.zero, elapsed)
        latencyCount += 1
        guard let smoothed = smoothedLatency else {
            smoothedLatency = sample
            latencyDeviation = sample / 2
            return
        }
        let error = sample > smoothed ? sample - smoothed : smoothed - sample
        latencyDeviation = latencyDeviation * 0.75 + error * 0.25
        smoothedLatency = smoothed * 0.875 + sample * 0.125
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
        closeSample(at: time, reopen: false)
    }

    private mutating func closeSample(at time: Duration, reopen: Bool) {
        guard let start = sampleStart else { return }
        let elapsed = time - start
        if elapsed > .zero, sampleBytes > 0 {
            let rate = Double(sampleBytes) * 8 / elapsed.inSeconds
            window.add(rate, weight: Double(sampleBytes).squareRoot())
            let weight = min(1, max(0, configuration.recentWeight))
            recentRate = recentRate.map { $0 * (1 - weight) + rate * weight } ?? rate
            measuredTime += elapsed
            measuredBytes += sampleBytes
            sampleCount += 1
        }
        sampleStart = reopen ? time : nil
        sampleBytes = 0
    }
}
