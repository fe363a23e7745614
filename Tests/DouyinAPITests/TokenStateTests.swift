import DouyinAPI
import Testing

/// The single-flight rules of ``TokenState``, without a server.
@Suite("TokenState: which token a call uses and when a fetch starts")
struct TokenStateTests {
    @Test func theFirstCallFetchesAndTheOthersWait() {
        var state = TokenState()
        #expect(state.need(rejected: nil) == .fetch(rejected: nil))
        #expect(state.need(rejected: nil) == .wait)
        state.fetched(.success("a"))
        #expect(state.need(rejected: nil) == .use("a"))
        #expect(state.fetches == 1)
        #expect(state.refreshes == 0)
    }

    @Test("Many 401s for one token: one refresh; calls starting meanwhile wait instead of taking the stale token")
    func oneRefreshForManyRejections() {
        var state = TokenState()
        _ = state.need(rejected: nil)
        state.fetched(.success("old"))
        #expect(state.need(rejected: "old") == .fetch(rejected: "old"))
        #expect(!state.isCurrent("old"))
        for _ in 0..<100 { #expect(state.need(rejected: "old") == .wait) }
        #expect(state.need(rejected: nil) == .wait)
        state.fetched(.success("new"))
        // A 401 for the old token that arrives after the refresh gets the new one, no second refresh.
        #expect(state.need(rejected: "old") == .use("new"))
        #expect(state.refreshes == 1)
        // The new token refused too: that is a refresh of its own.
        #expect(state.need(rejected: "new") == .fetch(rejected: "new"))
        #expect(state.refreshes == 2)
    }

    @Test("A failed refresh: a late 401 for the same token fails the same way; a new call starts over")
    func aFailedRefresh() {
        var state = TokenState()
        _ = state.need(rejected: nil)
        state.fetched(.success("old"))
        _ = state.need(rejected: "old")
        state.fetched(.failure(TokenState.Failure(reason: "HTTP 500")))
        #expect(state.need(rejected: "old") == .fail("HTTP 500"))
        #expect(state.refreshes == 1)
        #expect(state.need(rejected: nil) == .fetch(rejected: nil))
        #expect(state.fetches == 3)
    }
}
