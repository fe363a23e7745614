import DouyinFeed
import Testing

@Suite("Direction lock")
struct DirectionLockTests {
    @Test func deadZoneIsTheLargerOfThirtyPointsAndTenPercentOfWidth() {
        #expect(DirectionLock(width: 200).deadZone == 30)
        #expect(DirectionLock(width: 375).deadZone == 37.5)
        #expect(DirectionLock(width: 1024).deadZone == 102.4)
        #expect(DirectionLock(width: -5).deadZone == 30)
        #expect(DirectionLock(width: .nan).deadZone == 30)
    }

    @Test func horizontalOnlyPastTheDeadZone() {
        var lock = DirectionLock(width: 375)
        let r1 = lock.update(dx: 37.5, dy: 0)
        #expect(r1 == .undecided, "at the dead zone is not past it")
        let r2 = lock.update(dx: 37.6, dy: 2)
        #expect(r2 == .horizontal)
    }

    @Test func horizontalNeedsMoreSidewaysThanVerticalFromTheStart() {
        var lock = DirectionLock(width: 375)
        // Measured from the pan's start: 45 sideways but 45 down is not horizontal.
        let r3 = lock.update(dx: 45, dy: 45)
        #expect(r3 == .vertical)
    }

    @Test func verticalScrollThatDriftsSidewaysNeverFiresHorizontal() {
        var lock = DirectionLock(width: 375)
        let r4 = lock.update(dx: 3, dy: 20)
        #expect(r4 == .vertical)
        // The finger drifts far sideways later in the same pan.
        let r5 = lock.update(dx: 200, dy: 30)
        #expect(r5 == .vertical)
        let r6 = lock.end(dx: 250, dy: 30, velocityX: 3000, velocityY: 10)
        #expect(r6 == .vertical)
    }

    @Test func fastShortFlickIsHorizontal() {
        var lock = DirectionLock(width: 375)
        let r7 = lock.update(dx: 20, dy: 4)
        #expect(r7 == .undecided)
        let r8 = lock.end(dx: 24, dy: 5, velocityX: -900, velocityY: 100)
        #expect(r8 == .horizontal)
    }

    @Test func slowShortPanIsNoAction() {
        var lock = DirectionLock(width: 375)
        let r9 = lock.end(dx: 24, dy: 5, velocityX: 200, velocityY: 0)
        #expect(r9 == .undecided)
        var diagonal = DirectionLock(width: 375)
        let r10 = diagonal.end(dx: 8, dy: 9, velocityX: 900, velocityY: 1000)
        #expect(r10 == .undecided, "faster down than sideways")
    }
}
