import DouyinModels
import Testing

/// Issue 22 §4: one rectangle and one size for every layout (the gift panel's cells, the profile
/// header's frames, the feed's visibility and gravity rules); before, each kept its own copy.
@Suite("Rect and Size")
struct GeometryTests {
    @Test func edgesFollowFromTheTopLeftCorner() {
        let rect = Rect(x: 10, y: 20, size: Size(width: 30, height: 40))
        #expect(rect == Rect(x: 10, y: 20, width: 30, height: 40))
        #expect(rect.maxX == 40 && rect.maxY == 60)
        #expect(rect.size == Size(width: 30, height: 40))
        #expect(rect.area == 1200)
    }

    @Test func anEmptyOrNonFiniteRectangleHasNoAreaAndOverlapsNothing() {
        let screen = Rect(x: 0, y: 0, width: 375, height: 812)
        for empty in [Rect(x: 0, y: 0, width: 0, height: 10), Rect(x: 0, y: 0, width: -5, height: 10),
                      Rect(x: .nan, y: 0, width: 5, height: 10), Rect(x: 0, y: 0, width: .infinity, height: 10)] {
            #expect(empty.area == 0, "\(empty)")
            #expect(empty.overlap(with: screen) == 0 && screen.overlap(with: empty) == 0, "\(empty)")
        }
        #expect(!Size(width: 0, height: 1).isDrawable && !Size(width: 1, height: .nan).isDrawable)
        #expect(Size(width: 1, height: 1).isDrawable && !Size.zero.isDrawable)
    }

    @Test func overlapIsTheSharedAreaAndTouchingIsNone() {
        let a = Rect(x: 0, y: 0, width: 100, height: 100)
        #expect(a.overlap(with: Rect(x: 50, y: 50, width: 100, height: 100)) == 2500)
        #expect(a.overlap(with: Rect(x: 100, y: 0, width: 100, height: 100)) == 0)
        #expect(a.overlap(with: Rect(x: 25, y: 25, width: 10, height: 10)) == 100)
    }
}
