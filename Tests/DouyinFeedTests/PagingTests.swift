import DouyinFeed
import Testing

@Suite("Paging")
struct PagingTests {
    @Test func pageIndexRoundsFloatingPointDrift() {
        // 2.999999 pages is page 3, not 2 (truncation would replay the previous video).
        #expect(FeedPolicy.pageIndex(offset: 2.999999 * 812, pageHeight: 812, count: 10) == 3)
        #expect(FeedPolicy.pageIndex(offset: 3.000001 * 812, pageHeight: 812, count: 10) == 3)
        #expect(FeedPolicy.pageIndex(offset: 2.4 * 812, pageHeight: 812, count: 10) == 2)
        #expect(FeedPolicy.pageIndex(offset: 2.6 * 812, pageHeight: 812, count: 10) == 3)
    }

    @Test func pageIndexClampsToTheFeed() {
        #expect(FeedPolicy.pageIndex(offset: -300, pageHeight: 800, count: 5) == 0)
        #expect(FeedPolicy.pageIndex(offset: 99 * 800, pageHeight: 800, count: 5) == 4)
        #expect(FeedPolicy.pageIndex(offset: 800, pageHeight: 0, count: 5) == 0)
        #expect(FeedPolicy.pageIndex(offset: .nan, pageHeight: 800, count: 5) == 0)
        #expect(FeedPolicy.pageIndex(offset: .infinity, pageHeight: 800, count: 5) == 0)
        #expect(FeedPolicy.pageIndex(offset: 800, pageHeight: 800, count: 0) == 0)
        #expect(FeedPolicy.pageIndex(offset: 1e300, pageHeight: 1e-300, count: Int.max) == Int.max - 1)
    }

    @Test func swipePastFiftyPointsMovesOneItem() {
        #expect(FeedPolicy.settledIndex(afterSwipe: -51, from: 2, count: 5) == 3)
        #expect(FeedPolicy.settledIndex(afterSwipe: 51, from: 2, count: 5) == 1)
        #expect(FeedPolicy.settledIndex(afterSwipe: -5000, from: 2, count: 5) == 3, "a long swipe still moves one item")
    }

    @Test func swipeOfFiftyPointsOrLessStays() {
        #expect(FeedPolicy.settledIndex(afterSwipe: -50, from: 2, count: 5) == 2)
        #expect(FeedPolicy.settledIndex(afterSwipe: 50, from: 2, count: 5) == 2)
        #expect(FeedPolicy.settledIndex(afterSwipe: 0, from: 2, count: 5) == 2)
        #expect(FeedPolicy.settledIndex(afterSwipe: .nan, from: 2, count: 5) == 2)
    }

    @Test func swipeNeverMovesPastTheEnds() {
        #expect(FeedPolicy.settledIndex(afterSwipe: -200, from: 4, count: 5) == 4)
        #expect(FeedPolicy.settledIndex(afterSwipe: 200, from: 0, count: 5) == 0)
        #expect(FeedPolicy.settledIndex(afterSwipe: -200, from: 9, count: 5) == 4, "an index past the end is clamped")
        #expect(FeedPolicy.settledIndex(afterSwipe: -200, from: 0, count: 0) == 0)
    }

    @Test func layoutChangeRealignsToAWholePage() {
        // Rotation: 2.98 pages of 812 pt shown → page 3 of the new 375 pt height.
        #expect(FeedPolicy.realignedOffset(offset: 2.98 * 812, oldPageHeight: 812, newPageHeight: 375, count: 10) == 3 * 375)
        #expect(FeedPolicy.realignedOffset(offset: 4000, oldPageHeight: 812, newPageHeight: 0, count: 10) == 0)
        #expect(FeedPolicy.realignedOffset(offset: 99_999, oldPageHeight: 812, newPageHeight: 600, count: 10) == 9 * 600)
    }
}
