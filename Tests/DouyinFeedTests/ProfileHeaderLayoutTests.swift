import DouyinFeed
import DouyinModels
import Testing

@Suite("Profile page sticky header and tab bar")
struct ProfileHeaderLayoutTests {
    // A 375-point-wide portrait screen: a 300-point profile header, a 44-point tab bar under it,
    // a navigation bar covering the top 88 points (status bar included).
    let layout = ProfileHeaderLayout(
        header: Rect(x: 0, y: 0, width: 375, height: 300),
        footer: Rect(x: 0, y: 300, width: 375, height: 44),
        navigationBarHeight: 88
    )

    @Test func atRestNothingMoves() {
        let at = layout.attributes(contentOffset: 0)
        #expect(at.header == layout.header)
        #expect(at.footer == layout.footer)
        #expect(at.headerScale == 1)
        #expect(!at.isHeaderStopped && !at.isFooterPinned)
    }

    @Test func theHeaderStopsAtTheNavigationBarAndTheFooterPinsUnderIt() {
        // Until the header's bottom reaches the bar (offset 212), both scroll with the content.
        let before = layout.attributes(contentOffset: 200)
        #expect(before.header.y == 0 && before.footer.y == 300)
        #expect(!before.isHeaderStopped && !before.isFooterPinned)
        #expect(layout.headerStopOffset == 212)
        #expect(layout.footerPinOffset == 212)
        // Past it: the header's bottom stays on the bar's bottom, the footer's top too.
        for offset in [213.0, 500, 10_000] {
            let at = layout.attributes(contentOffset: offset)
            #expect(at.header.maxY == offset + 88)
            #expect(at.footer.y == offset + 88)
            #expect(at.header.height == 300)
            #expect(at.isHeaderStopped && at.isFooterPinned)
        }
    }

    @Test func theFooterIsDrawnAboveTheHeaderAndBothAboveTheCells() {
        #expect(ProfileHeaderLayout.footerZIndex > ProfileHeaderLayout.headerZIndex)
        #expect(ProfileHeaderLayout.headerZIndex > 0)
    }

    @Test func aPullDownStretchesTheHeaderFromTheVisibleTop() {
        let at = layout.attributes(contentOffset: -60)
        #expect(at.header.y == -60)  // its top stays at the visible top
        #expect(at.header.maxY == 300)  // its bottom stays on the tab bar
        #expect(at.header.width == 375)
        #expect(at.headerScale == 360.0 / 300.0)
        #expect(at.footer == layout.footer)
        #expect(!at.isHeaderStopped && !at.isFooterPinned)
        // A larger pull, a larger scale; never below 1.
        #expect(layout.attributes(contentOffset: -120).headerScale > at.headerScale)
        #expect(layout.attributes(contentOffset: 50).headerScale == 1)
    }

    @Test func aHeaderTallerThanTheScreenStopsOnlyWhenItsBottomReachesTheBar() {
        let tall = ProfileHeaderLayout(
            header: Rect(x: 0, y: 0, width: 375, height: 1500),
            footer: Rect(x: 0, y: 1500, width: 375, height: 44),
            navigationBarHeight: 88
        )
        // A whole screen (812) scrolled: still scrolling with the content.
        let screen = tall.attributes(contentOffset: 812)
        #expect(screen.header.y == 0 && !screen.isHeaderStopped && !screen.isFooterPinned)
        let stopped = tall.attributes(contentOffset: 1600)
        #expect(stopped.header.maxY == 1688)
        #expect(stopped.footer.y == 1688)
        #expect(tall.attributes(contentOffset: -10).headerScale == 1510.0 / 1500.0)
    }

    @Test func withoutANavigationBarTheyStopAtTheVisibleTop() {
        let bare = ProfileHeaderLayout(header: layout.header, footer: layout.footer, navigationBarHeight: 0)
        let at = bare.attributes(contentOffset: 400)
        #expect(at.footer.y == 400)
        #expect(at.header.maxY == 400)
        #expect(bare.attributes(contentOffset: 300).isFooterPinned == false)
        #expect(bare.attributes(contentOffset: 300.5).isFooterPinned)
        // A negative bar height is no bar.
        #expect(ProfileHeaderLayout(header: layout.header, footer: layout.footer, navigationBarHeight: -20) == bare)
        // A zero-height header does not divide by zero.
        let flat = ProfileHeaderLayout(header: Rect(x: 0, y: 0, width: 375, height: 0), footer: Rect(x: 0, y: 0, width: 375, height: 44), navigationBarHeight: 0)
        #expect(flat.attributes(contentOffset: -30).headerScale == 1)
    }

    @Test func rotationIsANewLayoutFromTheNewSizes() {
        // Landscape: wider frames, a shorter header, a 32-point bar. Nothing of portrait stays.
        let landscape = ProfileHeaderLayout(
            header: Rect(x: 0, y: 0, width: 812, height: 200),
            footer: Rect(x: 0, y: 200, width: 812, height: 44),
            navigationBarHeight: 32
        )
        #expect(landscape.footerPinOffset == 168)
        let at = landscape.attributes(contentOffset: 250)
        #expect(at.footer == Rect(x: 0, y: 282, width: 812, height: 44))
        #expect(at.header == Rect(x: 0, y: 82, width: 812, height: 200))
        // The same offset in portrait has not pinned yet.
        #expect(!layout.attributes(contentOffset: 200).isFooterPinned)
        #expect(landscape.attributes(contentOffset: 200).isFooterPinned)
    }
}
