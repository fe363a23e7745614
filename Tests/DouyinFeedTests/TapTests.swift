import DouyinFeed
import Foundation
import Testing

@Suite("Taps")
struct TapTests {
    typealias Point = TapSequence.Point
    let a = Point(x: 100, y: 200)
    let b = Point(x: 120, y: 180)

    @Test func singleTapFiresAfterTheInterval() {
        var taps = TapSequence()
        let r1 = taps.tap(at: a, time: .seconds(1))
        #expect(r1.isEmpty)
        #expect(taps.singleDeadline == .milliseconds(1250))
        let r2 = taps.advance(to: .milliseconds(1249))
        #expect(r2.isEmpty)
        let r3 = taps.advance(to: .milliseconds(1250))
        #expect(r3 == [.single(a)])
        let r4 = taps.advance(to: .seconds(9))
        #expect(r4.isEmpty, "fires once")
    }

    @Test func secondTapWithinTheIntervalIsADoubleTapAndCancelsTheSingle() {
        var taps = TapSequence()
        _ = taps.tap(at: a, time: .zero)
        let r5 = taps.tap(at: b, time: .milliseconds(200))
        #expect(r5 == [.multi(count: 2, point: b)])
        #expect(taps.singleDeadline == nil)
        let r6 = taps.advance(to: .seconds(5))
        #expect(r6.isEmpty, "no single after a double")
    }

    @Test func eachFurtherQuickTapCountsUp() {
        var taps = TapSequence()
        _ = taps.tap(at: a, time: .zero)
        var events: [TapSequence.Event] = []
        for step in 1...4 {
            events += taps.tap(at: a, time: .milliseconds(240 * step))
        }
        #expect(events == [2, 3, 4, 5].map { .multi(count: $0, point: a) })
    }

    @Test func tapAtExactlyTheIntervalStartsANewRun() {
        var taps = TapSequence()
        _ = taps.tap(at: a, time: .zero)
        let r7 = taps.tap(at: b, time: .milliseconds(250))
        #expect(r7 == [.single(a)])
        let r8 = taps.advance(to: .milliseconds(500))
        #expect(r8 == [.single(b)])
    }

    @Test func slowTapAfterAMultiTapRunIsASingle() {
        var taps = TapSequence()
        _ = taps.tap(at: a, time: .zero)
        _ = taps.tap(at: a, time: .milliseconds(100))
        let r9 = taps.tap(at: b, time: .milliseconds(600))
        #expect(r9.isEmpty)
        let r10 = taps.advance(to: .milliseconds(850))
        #expect(r10 == [.single(b)])
    }

    @Test func timeGoingBackwardsIsTakenAsTheLastTime() {
        var taps = TapSequence()
        _ = taps.tap(at: a, time: .seconds(10))
        let r11 = taps.tap(at: b, time: .seconds(3))
        #expect(r11 == [.multi(count: 2, point: b)])
    }

    @Test func heartTiltFollowsTheLastTwoPoints() {
        let right = FeedPolicy.heartTilt(previous: Point(x: 100, y: 300), last: Point(x: 102, y: 290))
        #expect(abs(right - atan2(2, 10)) < 1e-12)
        let left = FeedPolicy.heartTilt(previous: Point(x: 100, y: 300), last: Point(x: 99, y: 290))
        #expect(left < 0 && left > -FeedPolicy.maximumHeartTilt)
        #expect(abs(left - atan2(-1, 10)) < 1e-12)
    }

    @Test func heartTiltIsClamped() {
        let sideways = FeedPolicy.heartTilt(previous: Point(x: 0, y: 0), last: Point(x: 300, y: 0))
        #expect(sideways == FeedPolicy.maximumHeartTilt)
        let other = FeedPolicy.heartTilt(previous: Point(x: 300, y: 0), last: Point(x: 0, y: 1))
        #expect(other == -FeedPolicy.maximumHeartTilt)
    }

    @Test func heartTiltNeverNaNOnEqualX() {
        #expect(FeedPolicy.heartTilt(previous: Point(x: 50, y: 10), last: Point(x: 50, y: 90)) == 0)
        #expect(FeedPolicy.heartTilt(previous: Point(x: 50, y: 10), last: Point(x: 50, y: 10)) == 0)
        #expect(FeedPolicy.heartTilt(previous: nil, last: Point(x: 50, y: 10)) == 0)
        #expect(FeedPolicy.heartTilt(previous: Point(x: .nan, y: 0), last: Point(x: 1, y: 1)) == 0)
        #expect(FeedPolicy.heartTilt(previous: Point(x: 0, y: 0), last: Point(x: 1, y: .infinity)) == 0)
    }
}
