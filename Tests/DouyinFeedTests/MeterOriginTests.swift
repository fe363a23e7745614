import DouyinFeed
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// The meter over real transfers: a loopback origin whose one link is shaped to 4, 8 and
/// 16 Mbit/s, with 40 ms before each first byte. The bar: within ±15 % of the shaped
/// rate once 2 s or 512 KiB have been measured.
///
/// A wall-clock measurement, so it runs only when asked (`DOUYIN_TIMING_TESTS=1`): in a whole
/// `swift test` on 2 cores the loaded task pool delivers the shaped bytes in bursts and the
/// estimate was off by 48 % to 1,681×. The meter's rule itself is tested on an injected clock
/// in MeterTests; this check belongs beside the session bench.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["DOUYIN_TIMING_TESTS"] == "1"))
struct MeterOriginTests {
    @Test(arguments: [4_000_000, 8_000_000, 16_000_000])
    func estimateIsWithin15PercentOfTheLink(rate: Int) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = folder.appending("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var random = SeededRandom(seed: 24)
        try Data(random.bytes(1 << 20)).write(to: root.appendingPathComponent("blob.mp4"))
        let origin = try await ShapedOrigin.start(root: root, rate: rate)
        defer { origin.stop() }
        let meter = BandwidthMeter()
        let cache = try VideoCache(directory: folder.appending("video"), sizeLimit: 1 << 30,
                                   origin: MeteredOrigin(URLSessionOrigin(), meter: meter))

        // Given: transfers of 192 KiB each (another URL of the same file every time), as a
        // session's start-byte fetches are, until the meter trusts its samples.
        var transfers = 0
        while !meter.snapshot.isTrusted, transfers < 40 {
            let reader = cache.reader(for: origin.base.appendingPathComponent("t\(transfers)/blob.mp4"))
            try await reader.prefetch(0..<(192 * 1024))
            reader.close()
            transfers += 1
        }
        // Then: the estimate is the link's.
        let snapshot = meter.snapshot
        #expect(snapshot.isTrusted, "\(transfers) transfers, \(snapshot.measuredBytes) bytes in \(snapshot.measuredTime)")
        let error = abs(Double(meter.estimate) - Double(rate)) / Double(rate)
        #expect(error <= 0.15, "estimate \(meter.estimate) for a \(rate) bit/s link after \(transfers) transfers")
    }
}
