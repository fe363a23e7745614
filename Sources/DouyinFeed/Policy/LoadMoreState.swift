import Foundation

/// When to fetch the next page of a feed, as a pure state machine: idle, loading, all loaded,
/// or failed. Returns the request to send; drops answers for a feed no longer shown.
///
/// ```swift
/// var loader = LoadMoreState(feed: "post:42")
/// if let request = loader.visibleItemsChanged(lastVisible: 18, count: 21) { api.fetch(request.page) }
/// loader.received(request, itemCount: 21, hasMore: true)   // idle again, next page 2
/// ```
public struct LoadMoreState: Sendable, Hashable {
    /// Where the machine is.
    public enum Phase: Sendable, Hashable {
        /// Nothing in flight; more pages may exist.
        case idle
        /// A page request is in flight.
        case loading
        /// The server said there is no more (`has_more` 0, or an empty page).
        case all
        /// The last request failed; ``retry()`` sends it again.
        case failed
    }

    /// One page request: which feed, which page, and a token telling it from any other.
    public struct Request: Sendable, Hashable {
        /// The feed it is for (the caller's id: a user's posts, favorites).
        public var feed: String
        /// The page to fetch (from 0).
        public var page: Int
        /// Unique within this machine; answers carry it back.
        public var token: Int
    }

    /// How many items may remain after the last visible one before the next page is
    /// requested: 3 by default.
    public var surplus: Int
    /// The current phase.
    public private(set) var phase: Phase = .idle
    /// The feed shown.
    public private(set) var feed: String
    /// The next page to request.
    public private(set) var nextPage: Int
    /// The request in flight (or that failed), if any.
    public private(set) var pending: Request?
    private var nextToken = 0

    /// A machine for `feed` whose items so far came from pages before `nextPage` (0: none yet).
    public init(feed: String, nextPage: Int = 0, surplus: Int = 3) {
        self.feed = feed
        self.nextPage = max(0, nextPage)
        self.surplus = max(0, surplus)
    }

    /// The list scrolled: returns a request when idle and the last visible item is within
    /// ``surplus`` of the end of the `count` items held; `nil` otherwise.
    public mutating func visibleItemsChanged(lastVisible: Int, count: Int) -> Request? {
        guard phase == .idle, count - 1 - lastVisible <= surplus else { return nil }
        return start()
    }

    /// Sends the failed request again; `nil` unless the phase is ``Phase/failed``.
    public mutating func retry() -> Request? {
        guard phase == .failed else { return nil }
        return start()
    }

    /// A page arrived: `true` when it is the answer awaited (then the caller appends its
    /// items), `false` for a stale answer (another feed, or a request superseded), which the
    /// caller drops. `hasMore` false, or an empty page, means everything is loaded; absent
    /// `hasMore` with items means more may exist.
    @discardableResult
    public mutating func received(_ request: Request, itemCount: Int, hasMore: Bool?) -> Bool {
        guard phase == .loading, request == pending else { return false }
        pending = nil
        nextPage = request.page + 1
        phase = (hasMore == false || itemCount <= 0) ? .all : .idle
        return true
    }

    /// A request failed: `true` when it was the one awaited (now ``Phase/failed``).
    @discardableResult
    public mutating func failed(_ request: Request) -> Bool {
        guard phase == .loading, request == pending else { return false }
        phase = .failed
        return true
    }

    /// Shows another feed (or reloads this one from page 0): whatever is in flight becomes
    /// stale and its answer will be dropped.
    public mutating func show(feed: String, nextPage: Int = 0) {
        self.feed = feed
        self.nextPage = max(0, nextPage)
        pending = nil
        phase = .idle
    }

    private mutating func start() -> Request {
        nextToken += 1
        let request = Request(feed: feed, page: nextPage, token: nextToken)
        pending = request
        phase = .loading
        return request
    }
}
