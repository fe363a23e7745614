import DouyinFeed
import DouyinModels
import Testing

@Suite("Which item plays")
struct VisibilityTests {
    let viewport = Rect(x: 0, y: 0, width: 375, height: 800)

    func item(_ index: Int, y: Double, height: Double = 400) -> FeedPolicy.ListItem {
        .init(index: index, videoFrame: Rect(x: 0, y: y, width: 375, height: height))
    }

    @Test func mostVisibleVideoAreaPlays() {
        // Item 1 shows 300 of its 400 pt, item 2 all 400 pt of a shorter... item 2 wins by area.
        let items = [item(0, y: -300), item(1, y: 100), item(2, y: 500, height: 300)]
        #expect(FeedPolicy.playingItem(in: items, viewport: viewport) == 1)
    }

    @Test func tiesGoToTheItemNearestTheViewportCentre() {
        // Both fully visible, equal area: item 1's centre (y 500) is nearer 400 than item 0's (y 150).
        let items = [item(0, y: 0, height: 300), item(1, y: 350, height: 300)]
        #expect(FeedPolicy.playingItem(in: items, viewport: viewport) == 1)
        // Mirror image: equal distance too → the lower index.
        let mirrored = [item(4, y: 100, height: 200), item(3, y: 500, height: 200)]
        #expect(FeedPolicy.playingItem(in: mirrored, viewport: viewport) == 3)
    }

    @Test func noneBelowTheVisibilityThreshold() {
        let items = [item(0, y: -250), item(1, y: 650)]  // 150 and 150 of 400 pt visible
        #expect(FeedPolicy.playingItem(in: items, viewport: viewport) == nil)
        #expect(FeedPolicy.playingItem(in: items, viewport: viewport, threshold: 0.3) == 0)
        #expect(FeedPolicy.playingItem(in: [], viewport: viewport) == nil)
    }

    @Test func degenerateFramesNeverPlay() {
        let items = [
            FeedPolicy.ListItem(index: 0, videoFrame: Rect(x: 0, y: 0, width: 0, height: 400)),
            FeedPolicy.ListItem(index: 1, videoFrame: Rect(x: 0, y: .nan, width: 375, height: 400)),
            FeedPolicy.ListItem(index: 2, videoFrame: Rect(x: 0, y: 0, width: -375, height: 400)),
        ]
        #expect(FeedPolicy.playingItem(in: items, viewport: viewport) == nil)
    }

    @Test func pagerPlaysTheCurrentPage() {
        #expect(FeedPolicy.playingPage(offset: 1.9999 * 800, pageHeight: 800, count: 5) == 2)
        #expect(FeedPolicy.playingPage(offset: 0, pageHeight: 800, count: 0) == nil)
    }
}
