import DouyinFeed
import DouyinTestSupport
import Foundation
import Testing

/// The bandwidth meter's arithmetic on injected times: no clock runs, no timing asserts.
@Suite struct MeterTests {
    /// Feeds `transfers` back-to-back transfers of `bytes` each over a link of `rate` bits/s,
    /// each with `latency` before its first byte, in 16 KiB chunks; returns the time reached.
    @discardableResult
    static func feed(_ estimator: inout BandwidthEstimator, rate: Double, transfers: Int, bytes: Int64,
                     latency: Duration = .milliseconds(40), from start: Duration = .zero) -> Duration {
        var now = start
        let chunk: Int64 = 16 * 1024
        for _ in 0..<transfers {
            estimator.transferStarted(at: now)
            now += latency
            var left = bytes
            while left > 0 {
                let size = min(chunk, left)
                now += .nanoseconds(Int64(Double(size) * 8 / rate * 1e9))
                estimator.bytesReceived(size, at: now)
                left -= size
            }
            estimator.transferEnded(at: now)
        }
        return now
    }

    @Test(arguments: [4_000_000.0, 8_000_000.0, 16_000_000.0])
    func estimateMatchesTheLinkOnceTrusted(rate: Double) {
        var estimator = BandwidthEstimator()
        #expect(estimator.estimate == 2_000_000, "warm start before any byte")
        Self.feed(&estimator, rate: rate, transfers: 8, bytes: 96 * 1024)
        #expect(estimator.isTrusted)
        let error = abs(Double(estimator.estimate) - rate) / rate
        #expect(error < 0.02, "estimate \(estimator.estimate) for \(rate)")
    }

    /// Regression: counting the 40 ms before each first byte read a 16 Mbit/s link of 64 KiB
    /// moov-sized transfers as well under half its rate.
    @Test func latencyBeforeTheFirstByteIsNotBandwidth() {
        var estimator = BandwidthEstimator()
        Self.feed(&estimator, rate: 16_000_000, transfers: 12, bytes: 64 * 1024)
        #expect(abs(Double(estimator.estimate) - 16_000_000) / 16_000_000 < 0.02, "estimate \(estimator.estimate)")
    }

    @Test func warmStartHoldsUntilOneSecondOrAQuarterMebibyte() {
        var configuration = BandwidthEstimator.Configuration()
        configuration.initialEstimate = 3_000_000
        var estimator = BandwidthEstimator(configuration: configuration)
        // 100 KiB at 1 Mbit/s: about 0.7 s measured (the first chunk opens the sample), under both thresholds.
        let now = Self.feed(&estimator, rate: 1_000_000, transfers: 1, bytes: 100 * 1024)
        #expect(!estimator.isTrusted)
        #expect(estimator.estimate == 3_000_000)
        Self.feed(&estimator, rate: 1_000_000, transfers: 1, bytes: 96 * 1024, from: now)
        #expect(estimator.isTrusted, "over 1 s measured")
        #expect(abs(Double(estimator.estimate) - 1_000_000) / 1_000_000 < 0.02)
    }

    /// Two transfers sharing one link: the meter measures the link, not either transfer.
    @Test func concurrentTransfersShareTheLink() {
        var estimator = BandwidthEstimator()
        var now = Duration.zero
        estimator.transferStarted(at: now)
        estimator.transferStarted(at: now)
        let chunk: Int64 = 16 * 1024
        let perChunk = Duration.nanoseconds(Int64(Double(chunk) * 8 / 8_000_000 * 1e9))
        for _ in 0..<64 {
            now += perChunk
            estimator.bytesReceived(chunk, at: now)
        }
        estimator.transferEnded(at: now)
        estimator.transferEnded(at: now)
        #expect(abs(Double(estimator.estimate) - 8_000_000) / 8_000_000 < 0.02, "estimate \(estimator.estimate)")
    }

    /// The window forgets by weight: after the link drops, the estimate follows it.
    @Test func aDropIsFollowed() {
        var estimator = BandwidthEstimator()
        let now = Self.feed(&estimator, rate: 16_000_000, transfers: 10, bytes: 256 * 1024)
        Self.feed(&estimator, rate: 2_000_000, transfers: 40, bytes: 256 * 1024, from: now)
        #expect(abs(Double(estimator.estimate) - 2_000_000) / 2_000_000 < 0.05, "estimate \(estimator.estimate)")
    }

    @Test func percentileIsWeighted() {
        var window = SlidingPercentile(maxWeight: 10)
        window.add(1, weight: 1)
        window.add(5, weight: 8)
        window.add(9, weight: 1)
        #expect(window.percentile(0.5) == 5)
        window.add(9, weight: 9)
        // Only 10 of weight is kept: the 1 and the 5s leave, oldest first.
        #expect(window.totalWeight == 10)
        #expect(window.percentile(0.5) == 9)
    }

    /// The class stamps events with its clock: here a test clock moved by hand.
    @Test func meterReadsItsClock() {
        let clock = TestClock()
        let meter = BandwidthMeter(clock: clock)
        for _ in 0..<4 {
            meter.transferStarted()
            clock.advance(by: .milliseconds(40))
            meter.bytesReceived(16 * 1024)
            for _ in 0..<16 {
                clock.advance(by: .nanoseconds(Int64(16 * 1024 * 8 / 8_000_000.0 * 1e9)))
                meter.bytesReceived(16 * 1024)
            }
            meter.transferEnded()
        }
        #expect(meter.snapshot.isTrusted)
        #expect(abs(Double(meter.estimate) - 8_000_000) / 8_000_000 < 0.02, "estimate \(meter.estimate)")
    }
}
