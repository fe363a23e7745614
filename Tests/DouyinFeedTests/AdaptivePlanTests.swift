import DouyinFeed
import DouyinVideoCache
import Foundation
import Testing

/// The adaptive policy's rules and its learning, pure.
@Suite struct AdaptivePlanTests {
    static func item(_ index: Int, bitRate: Int = 1_200_000, length: Int64? = 1_500_000, start: StartBytes? = nil,
                     held: [Range<Int64>] = []) -> AdaptivePlan.Item {
        AdaptivePlan.Item(index: index, gear: Gear(url: URL(string: "http://o.test/\(index).mp4")!, bitRate: bitRate),
                          length: length, start: start, held: ByteRangeSet(held))
    }

    static let faststart = StartBytes(head: 0..<160_000, tail: nil)
    /// A link slow enough that the buffer target is its 1.5 s ceiling.
    static let slow: Int64 = 500_000
    static let moovAtEnd = StartBytes(head: 0..<150_040, tail: 1_490_000..<1_500_000)

    @Test func thePlayingItemGetsItsStartBytesFirst() {
        let playing = Self.item(0, start: Self.moovAtEnd, held: [0..<150_040])
        let fetch = AdaptivePlan.playingFetch(playing, readPosition: nil, estimate: Self.slow)
        #expect(fetch?.range == 1_490_000..<1_500_000)
        #expect(fetch?.purpose == .playingStart)
        #expect(!AdaptivePlan.admitsPreload(playing, readPosition: nil, estimate: Self.slow), "not started: nothing else")
    }

    @Test func anUnknownLayoutIsProbed() {
        let fetch = AdaptivePlan.playingFetch(Self.item(0, length: nil), readPosition: nil, estimate: Self.slow)
        #expect(fetch?.range.lowerBound == 0)
        // 32 KiB + 1 s at 1.2 Mbit/s (a literal: in #expect an arithmetic right side is typed Int).
        #expect(fetch?.range.upperBound == 182_768)
    }

    /// On a slow link the target is over a second: below it, the playing item tops up to the
    /// target (at least 0.25 s, 37,500 bytes at 1.2 Mbit/s) and preloads wait; at it, they may run.
    @Test func preloadsWaitForThePlayingBuffer() {
        let gear = Gear(url: URL(string: "http://o.test/0.mp4")!, bitRate: 1_200_000)
        let target = gear.bytes(for: AdaptivePlan.bufferTarget(for: gear, estimate: Self.slow))
        #expect(target > 150_000, "over a second of media")
        let low = Self.item(0, start: Self.faststart, held: [0..<300_000])
        let fetch = AdaptivePlan.playingFetch(low, readPosition: 160_000, estimate: Self.slow)
        #expect(fetch?.range == 300_000..<(160_000 + target))
        #expect(fetch?.purpose == .playing)
        #expect(!AdaptivePlan.admitsPreload(low, readPosition: 160_000, estimate: Self.slow))

        let nearlyFull = Self.item(0, start: Self.faststart, held: [0..<(160_000 + target - 10)])
        #expect(AdaptivePlan.playingFetch(nearlyFull, readPosition: 160_000, estimate: Self.slow)?.range
            == (160_000 + target - 10)..<(160_000 + target - 10 + 37_500), "at least the refill")

        let full = Self.item(0, start: Self.faststart, held: [0..<(160_000 + target)])
        #expect(AdaptivePlan.playingFetch(full, readPosition: 160_000, estimate: Self.slow) == nil)
        #expect(AdaptivePlan.admitsPreload(full, readPosition: 160_000, estimate: Self.slow))

        let whole = Self.item(0, length: 200_000, start: Self.faststart, held: [0..<200_000])
        #expect(AdaptivePlan.admitsPreload(whole, readPosition: 190_000, estimate: Self.slow), "held to its end")
    }

    @Test func startBytesOfTheWindowNearestFirstThenDepthWhenSpare() {
        var window = [
            Self.item(1, start: Self.faststart, held: [0..<160_000]),
            Self.item(2, start: Self.moovAtEnd, held: [0..<150_040]),
            Self.item(3),
        ]
        // After its start bytes, the nearest item gets its buffer target at 8 Mbit/s.
        let target = window[0].gear.bytes(for: AdaptivePlan.bufferTarget(for: window[0].gear, estimate: 8_000_000))
        let lead = AdaptivePlan.preloadFetch(window: window, depth: .seconds(1), estimate: 8_000_000, playingBitRate: 2_400_000)
        #expect(lead == AdaptivePlan.Fetch(index: 1, url: window[0].gear.url, range: 160_000..<(160_000 + target), purpose: .lead))
        window[0].held.insert(160_000..<(160_000 + target))
        let first = AdaptivePlan.preloadFetch(window: window, depth: .seconds(1), estimate: 8_000_000, playingBitRate: 2_400_000)
        #expect(first == AdaptivePlan.Fetch(index: 2, url: window[1].gear.url, range: 1_490_000..<1_500_000, purpose: .start))

        var done = window
        done[1].held.insert(1_490_000..<1_500_000)
        done[2].start = Self.faststart
        done[2].held.insert(0..<160_000)
        // Depth goes to the further items, up to their buffer target, nearest first.
        let depth = AdaptivePlan.preloadFetch(window: done, depth: .seconds(1), estimate: 8_000_000, playingBitRate: 2_400_000)
        #expect(depth == AdaptivePlan.Fetch(index: 2, url: window[1].gear.url, range: 150_040..<(150_040 + target), purpose: .depth))

        // Not spare: 0.5 × 4 Mbit/s does not exceed a 2.4 Mbit/s playing gear (the nearest's
        // lead held to its longer target on that link).
        var slower = done
        slower[0].held.insert(0..<400_000)
        #expect(AdaptivePlan.preloadFetch(window: slower, depth: .seconds(1), estimate: 4_000_000, playingBitRate: 2_400_000) == nil)
        // No depth learned: nothing beyond start bytes.
        #expect(AdaptivePlan.preloadFetch(window: done, depth: .zero, estimate: 16_000_000, playingBitRate: 600_000) == nil)
    }

    /// Past the window, only start bytes, nearest first, and only while the link is spare
    /// beside the playing gear (the window's own fetches come first: the session asks this
    /// only when ``AdaptivePlan/preloadFetch(window:depth:estimate:playingBitRate:configuration:)`` has nothing).
    @Test func pastTheWindowStartBytesOnlyWhileTheLinkIsSpare() {
        var beyond = [
            Self.item(3, start: Self.faststart, held: [0..<160_000]),
            Self.item(4, start: Self.moovAtEnd, held: [0..<150_040]),
            Self.item(5),
        ]
        let tail = AdaptivePlan.spareStartFetch(beyond: beyond, estimate: 4_000_000, playingBitRate: 1_200_000)
        #expect(tail == AdaptivePlan.Fetch(index: 4, url: beyond[1].gear.url, range: 1_490_000..<1_500_000, purpose: .start))
        beyond[1].held.insert(1_490_000..<1_500_000)
        let probe = AdaptivePlan.spareStartFetch(beyond: beyond, estimate: 4_000_000, playingBitRate: 1_200_000)
        #expect(probe?.index == 5)
        #expect(probe?.purpose == .probe)
        #expect(probe?.range.lowerBound == 0)
        beyond[2].start = Self.faststart
        beyond[2].held.insert(0..<160_000)
        #expect(AdaptivePlan.spareStartFetch(beyond: beyond, estimate: 4_000_000, playingBitRate: 1_200_000) == nil,
                "start bytes held: no media beyond them")
        // Not spare: 0.5 × 4 Mbit/s does not exceed a 2.4 Mbit/s playing gear.
        #expect(AdaptivePlan.spareStartFetch(beyond: [Self.item(6)], estimate: 4_000_000, playingBitRate: 2_400_000) == nil)
        #expect(AdaptivePlan.spareStartFetch(beyond: [Self.item(6)], estimate: 4_000_000, playingBitRate: 1_900_000) != nil)
    }

    @Test func skipsMakeItShallowerLongViewsDeeper() {
        var deep = SessionProfile.Configuration()
        deep.maxDepth = .seconds(2)
        var skipper = SessionProfile(configuration: deep)
        var watcher = SessionProfile(configuration: deep)
        let fetch = Duration.milliseconds(600)
        let prior = (skipper.window(fetchTime: fetch), skipper.depth)
        for _ in 0..<8 {
            skipper.viewed(.milliseconds(500))
            watcher.viewed(.seconds(12))
        }
        #expect(skipper.depth == .zero, "\(skipper)")
        #expect(watcher.depth == .seconds(2))
        #expect(skipper.depth < prior.1 && watcher.depth > prior.1)
        // Fast swipes need more items ready; long views fewer.
        #expect(skipper.window(fetchTime: fetch) == 4)
        #expect(watcher.window(fetchTime: fetch) == 2)
        #expect(prior.0 == 3)
        // Off by default: no view makes any depth.
        var plain = SessionProfile()
        for _ in 0..<8 { plain.viewed(.seconds(12)) }
        #expect(plain.depth == .zero)
    }

    @Test func learningIsDeterministic() {
        var a = SessionProfile(), b = SessionProfile()
        for watch in [300, 4_000, 800, 12_000, 2_500] {
            a.viewed(.milliseconds(watch))
            b.viewed(.milliseconds(watch))
        }
        #expect(a == b)
    }
}
