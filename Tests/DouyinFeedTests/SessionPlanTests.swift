import DouyinFeed
import DouyinVideoCache
import Foundation
import Testing

/// The rules that cut the adaptive policy's unplayed bytes (issue 24, item 1), pure: each one
/// is checked on values, with the link given as an estimate rather than timed.
@Suite struct SessionPlanTests {
    static func item(_ index: Int, bitRate: Int = 2_400_000, length: Int64? = 1_800_000, start: StartBytes? = nil,
                     held: [Range<Int64>] = []) -> AdaptivePlan.Item {
        AdaptivePlan.Item(index: index, gear: Gear(url: URL(string: "http://o.test/\(index).mp4")!, bitRate: bitRate),
                          length: length, start: start, held: ByteRangeSet(held))
    }

    /// moov to 10,000, then 1 s at 2.4 Mbit/s (300,000 bytes).
    static let start = StartBytes(head: 0..<310_000, tail: nil)

    /// The buffer target is the time a top-up takes on the link: 0.1 s to the first byte (the
    /// prior), 0.1 s of report, and a 0.25 s refill at half the estimate; within 0.25...1.5 s.
    @Test func theBufferTargetFollowsTheLink() {
        let top = Gear(url: URL(string: "http://o.test/a.mp4")!, bitRate: 2_400_000)
        func near(_ target: Duration, _ seconds: Double) -> Bool { abs(target.inSeconds - seconds) < 0.001 }
        // 8 Mbit/s: 75,000 bytes at 4 Mbit/s take 0.15 s.
        #expect(near(AdaptivePlan.bufferTarget(for: top, estimate: 8_000_000), 0.35))
        // 1 Mbit/s: 75,000 bytes at 0.5 Mbit/s take 1.2 s.
        #expect(near(AdaptivePlan.bufferTarget(for: top, estimate: 1_000_000), 1.4))
        // 0.5 Mbit/s: over the 1.5 s ceiling.
        #expect(AdaptivePlan.bufferTarget(for: top, estimate: 500_000) == .milliseconds(1500))
        // No estimate at all: the ceiling, never a division by zero.
        #expect(AdaptivePlan.bufferTarget(for: top, estimate: 0) == .milliseconds(1500))
    }

    /// On a fast link the playing item holds about a third of a second ahead (what is ahead at
    /// a swipe is never played): 0.6 s ahead needs nothing and lets preloads run.
    @Test func aFastLinkHoldsLessAheadOfThePlayingItem() {
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 2_400_000)
        // Read position 400,000; held to 580,000: 180,000 bytes = 0.6 s at 2.4 Mbit/s.
        let playing = Self.item(0, start: Self.start, held: [0..<580_000])
        #expect(AdaptivePlan.playingFetch(playing, readPosition: 400_000, estimate: 8_000_000) == nil)
        #expect(AdaptivePlan.admitsPreload(playing, readPosition: 400_000, estimate: 8_000_000))
        // On a slow link the same buffer is short of its target: topped up to it, preloads wait.
        let slowTarget = gear.bytes(for: AdaptivePlan.bufferTarget(for: gear, estimate: 1_000_000))
        let fetch = AdaptivePlan.playingFetch(playing, readPosition: 400_000, estimate: 1_000_000)
        #expect(fetch?.range == 580_000..<(400_000 + slowTarget))
        #expect(!AdaptivePlan.admitsPreload(playing, readPosition: 400_000, estimate: 1_000_000))
        // Under the target the top-up takes at least a refill (0.25 s, 75,000 bytes).
        let low = Self.item(0, start: Self.start, held: [0..<500_000])
        #expect(AdaptivePlan.playingFetch(low, readPosition: 400_000, estimate: 8_000_000)?.range == 500_000..<575_000)
    }

    /// Only the nearest window item gets media beyond its start bytes with them; the next gets
    /// its start bytes alone (it gets the rest once it is the nearest).
    @Test func onlyTheNearestItemGetsALead() {
        var window = [Self.item(1, start: Self.start, held: [0..<310_000]), Self.item(2, start: Self.start)]
        let lead = AdaptivePlan.preloadFetch(window: window, depth: .zero, estimate: 8_000_000, playingBitRate: 2_400_000)
        let target = window[0].gear.bytes(for: AdaptivePlan.bufferTarget(for: window[0].gear, estimate: 8_000_000))
        #expect(lead == AdaptivePlan.Fetch(index: 1, url: window[0].gear.url, range: 310_000..<(310_000 + target), purpose: .lead))
        window[0].held.insert(310_000..<(310_000 + target))
        let next = AdaptivePlan.preloadFetch(window: window, depth: .zero, estimate: 8_000_000, playingBitRate: 2_400_000)
        #expect(next == AdaptivePlan.Fetch(index: 2, url: window[1].gear.url, range: 0..<310_000, purpose: .start))
        window[1].held.insert(0..<310_000)
        #expect(AdaptivePlan.preloadFetch(window: window, depth: .zero, estimate: 8_000_000, playingBitRate: 2_400_000) == nil)
    }

    /// Learned depth (2 s for a viewer of long views) is capped at the buffer target: a preload
    /// never holds more ahead than the item would hold playing.
    @Test func depthNeverExceedsTheBufferTarget() {
        let window = [Self.item(1, start: Self.start, held: [0..<460_000]), Self.item(2, start: Self.start, held: [0..<310_000])]
        let target = window[1].gear.bytes(for: AdaptivePlan.bufferTarget(for: window[1].gear, estimate: 16_000_000))
        let depth = AdaptivePlan.preloadFetch(window: window, depth: .seconds(2), estimate: 16_000_000, playingBitRate: 2_400_000)
        #expect(depth == AdaptivePlan.Fetch(index: 2, url: window[1].gear.url, range: 310_000..<(310_000 + target), purpose: .depth))
        var full = window
        full[1].held.insert(310_000..<(310_000 + target))
        #expect(AdaptivePlan.preloadFetch(window: full, depth: .seconds(2), estimate: 16_000_000, playingBitRate: 2_400_000) == nil)
    }

    /// Depth waits until the playing item holds its buffer target plus what the preload costs
    /// it (the first byte's wait and the bytes at the estimate), and the playing top-up reaches
    /// that first: the preload then ends before the next refill and never stalls it.
    @Test func aPreloadWaitsUntilThePlayingItemCoversIt() {
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 2_400_000)
        // 300,000 bytes at 8 Mbit/s: 0.3 s, + 0.1 s to the first byte.
        let reserve = AdaptivePlan.preloadReserve(bytes: 300_000, estimate: 8_000_000)
        #expect(reserve > .milliseconds(399) && reserve <= .milliseconds(400), "\(reserve)")
        let covered = gear.bytes(for: AdaptivePlan.bufferTarget(for: gear, estimate: 8_000_000) + reserve)
        // Read position 400,000, 0.6 s (180,000 bytes) held ahead: enough for the target alone,
        // not with the reserve, which the top-up reaches.
        let playing = Self.item(0, start: Self.start, held: [0..<580_000])
        #expect(covered > 180_000)
        #expect(AdaptivePlan.admitsPreload(playing, readPosition: 400_000, estimate: 8_000_000))
        #expect(!AdaptivePlan.admitsPreload(playing, readPosition: 400_000, estimate: 8_000_000, reserve: reserve))
        let fetch = AdaptivePlan.playingFetch(playing, readPosition: 400_000, estimate: 8_000_000, reserve: reserve)
        #expect(fetch?.range == 580_000..<max(400_000 + covered, 655_000))
        let done = Self.item(0, start: Self.start, held: [0..<(400_000 + covered)])
        #expect(AdaptivePlan.admitsPreload(done, readPosition: 400_000, estimate: 8_000_000, reserve: reserve))
    }
}
