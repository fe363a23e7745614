import DouyinFeed
import Foundation
import Testing

/// The session's player model, start bytes and gear choice: pure, on offsets of no clock.
@Suite struct SessionModelTests {
    static let url = URL(string: "http://o.test/v.mp4")!

    /// A big-endian box header.
    static func box(_ size: UInt32, _ type: String) -> Data {
        Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]) + Data(type.utf8)
    }

    /// `ftyp` (32) + `moov` (5,000) + `mdat`, or `ftyp` + `mdat` + `moov` at the end.
    static func layout(moovFirst: Bool, length: Int64) async -> StartBytes.Layout? {
        let mdatSize = UInt32(length - 32 - 5_000)
        var boxes: [(Int64, Data)] = [(0, box(32, "ftyp"))]
        if moovFirst {
            boxes += [(32, box(5_000, "moov")), (5_032, box(mdatSize, "mdat"))]
        } else {
            boxes += [(32, box(mdatSize, "mdat")), (32 + Int64(mdatSize), box(5_000, "moov"))]
        }
        return await StartBytes.layout(length: length) { offset in boxes.first { $0.0 == offset }?.1 }
    }

    @Test func faststartStartsThroughMoovPlusOneSecond() async throws {
        let layout = try #require(await Self.layout(moovFirst: true, length: 1_000_000))
        #expect(layout == .faststart(moovEnd: 5_032))
        let start = StartBytes(layout: layout, length: 1_000_000, bitRate: 1_200_000)
        #expect(start.head == 0..<(5_032 + 150_000))
        #expect(start.tail == nil)
    }

    @Test func moovAtEndNeedsItsTail() async throws {
        let layout = try #require(await Self.layout(moovFirst: false, length: 1_000_000))
        #expect(layout == .moovAtEnd(mediaStart: 40, tail: 995_000..<1_000_000))
        let start = StartBytes(layout: layout, length: 1_000_000, bitRate: 2_400_000)
        #expect(start.ranges == [0..<300_040, 995_000..<1_000_000])
        #expect(start.byteCount == 305_040)
    }

    @Test func aShortFileIsHeldWhole() {
        let start = StartBytes(layout: .faststart(moovEnd: 5_000), length: 60_000, bitRate: 2_400_000)
        #expect(start.head == 0..<60_000)
    }

    @Test func notAnMP4HasNoLayout() async {
        let layout = await StartBytes.layout(length: 100) { _ in Data("<html>not a video</html>".utf8) }
        #expect(layout == nil)
    }

    /// 1 Mbit/s is 125,000 bytes a second: bytes arriving late stall the player for the gap.
    @Test func aStallIsTheTimeTheReadPositionWaitsAtTheHeldEnd() {
        var model = PlaybackModel(startOffset: 125_000, length: 1_000_000, bitRate: 1_000_000, startedAt: .seconds(10), heldEnd: 250_000)
        #expect(model.position(at: .seconds(10)) == 125_000)
        #expect(model.position(at: .milliseconds(10_500)) == 187_500)
        // The held run (1 s of media) runs out at 11 s; more arrives at 11.5 s.
        #expect(model.catchUpTime == .seconds(11))
        #expect(model.position(at: .milliseconds(11_400)) == 250_000)
        model.held(upTo: 500_000, at: .milliseconds(11_500))
        #expect(model.stalled == .milliseconds(500))
        #expect(model.position(at: .seconds(12)) == 312_500)
        // In time, no stall.
        model.held(upTo: 625_000, at: .seconds(12))
        #expect(model.stalled == .milliseconds(500))
        // Runs out at 14.5 s; still stalled at a swipe at 16 s counts too.
        #expect(model.stall(until: .seconds(16)) == .seconds(2))
    }

    @Test func theWholeFileHeldNeverStalls() {
        let model = PlaybackModel(startOffset: 100, length: 1_000, bitRate: 8_000, startedAt: .zero, heldEnd: 1_000)
        #expect(model.catchUpTime == nil)
        #expect(model.stall(until: .seconds(60)) == .zero)
        #expect(model.position(at: .seconds(60)) == 1_000)
    }

    static let gears = [600_000, 1_200_000, 2_400_000].map { Gear(url: URL(string: "http://o.test/\($0).mp4")!, bitRate: $0) }

    @Test(arguments: [(4_000_000, 1_200_000), (8_000_000, 2_400_000), (16_000_000, 2_400_000), (1_000_000, 600_000), (100_000, 600_000)])
    func gearIsTheHighestThatFitsHalfTheEstimate(estimate: Int64, expected: Int) {
        #expect(Gear.choose(from: Self.gears.reversed(), estimate: estimate, safety: 0.5)?.bitRate == expected)
    }

    @Test func noGearsNoChoice() {
        #expect(Gear.choose(from: [], estimate: 8_000_000, safety: 0.5) == nil)
    }

    @Test func aGearThatWouldOutrunTheLinkIsFlagged() {
        let top = Self.gears[2]
        // 10 s at 2.4 Mbit/s is 3 MB; half of 2 Mbit/s delivers 1.25 MB in that time.
        #expect(Gear.wouldStall(top, heldAhead: 300_000, remaining: .seconds(10), estimate: 2_000_000, safety: 0.5))
        #expect(!Gear.wouldStall(top, heldAhead: 300_000, remaining: .seconds(10), estimate: 8_000_000, safety: 0.5))
        #expect(!Gear.wouldStall(top, heldAhead: 3_000_000, remaining: .seconds(10), estimate: 100_000, safety: 0.5))
    }
}
