import DouyinFeed
import Testing

@Suite("Load more")
struct LoadMoreTests {
    @Test func triggersWhenTheLastVisibleItemIsWithinTheSurplus() throws {
        var state = LoadMoreState(feed: "post:1", nextPage: 1, surplus: 3)
        let r1 = state.visibleItemsChanged(lastVisible: 16, count: 21)
        #expect(r1 == nil, "4 items left")
        let r2 = state.visibleItemsChanged(lastVisible: 17, count: 21)
        let request = try #require(r2)
        #expect(request.page == 1 && request.feed == "post:1")
        #expect(state.phase == .loading)
    }

    @Test func onlyOneRequestInFlight() throws {
        var state = LoadMoreState(feed: "f")
        let first = state.visibleItemsChanged(lastVisible: 20, count: 21)
        #expect(first != nil)
        let r3 = state.visibleItemsChanged(lastVisible: 20, count: 21)
        #expect(r3 == nil)
    }

    @Test func hasMoreZeroMeansAll() throws {
        var state = LoadMoreState(feed: "f")
        let r4 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let request = try #require(r4)
        let r5 = state.received(request, itemCount: 21, hasMore: false)
        #expect(r5)
        #expect(state.phase == .all)
        let r6 = state.visibleItemsChanged(lastVisible: 21, count: 22)
        #expect(r6 == nil)
    }

    @Test func emptyPageMeansAllEvenWhenHasMoreSaysOtherwise() throws {
        var state = LoadMoreState(feed: "f")
        let r7 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let request = try #require(r7)
        state.received(request, itemCount: 0, hasMore: true)
        #expect(state.phase == .all)
    }

    @Test func pageWithMoreGoesBackToIdleAndAdvances() throws {
        var state = LoadMoreState(feed: "f")
        let r8 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let first = try #require(r8)
        state.received(first, itemCount: 21, hasMore: true)
        #expect(state.phase == .idle && state.nextPage == 1)
        let r9 = state.visibleItemsChanged(lastVisible: 20, count: 22)
        let second = try #require(r9)
        #expect(second.page == 1 && second.token != first.token)
        state.received(second, itemCount: 21, hasMore: nil)
        #expect(state.phase == .idle && state.nextPage == 2, "absent has_more with items: more may exist")
    }

    @Test func failureWaitsForRetry() throws {
        var state = LoadMoreState(feed: "f", nextPage: 3)
        let r10 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let request = try #require(r10)
        let r11 = state.failed(request)
        #expect(r11)
        #expect(state.phase == .failed)
        let r12 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        #expect(r12 == nil, "scrolling does not hammer a failing server")
        let r13 = state.retry()
        let again = try #require(r13)
        #expect(again.page == 3)
        let r14 = state.retry()
        #expect(r14 == nil)
        let r15 = state.failed(request)
        #expect(r15 == false, "the old request's late failure is stale")
        #expect(state.phase == .loading)
    }

    @Test func staleResponseForAFeedNoLongerShownIsDropped() throws {
        var state = LoadMoreState(feed: "post:1")
        let r16 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let old = try #require(r16)
        state.show(feed: "favorite:1")
        let r17 = state.received(old, itemCount: 21, hasMore: false)
        #expect(r17 == false)
        #expect(state.phase == .idle && state.nextPage == 0)
        let r18 = state.visibleItemsChanged(lastVisible: 0, count: 1)
        let fresh = try #require(r18)
        #expect(fresh.feed == "favorite:1")
        let r19 = state.received(old, itemCount: 21, hasMore: false)
        #expect(r19 == false, "still stale while the new one loads")
        let r20 = state.received(fresh, itemCount: 5, hasMore: true)
        #expect(r20)
    }
}
