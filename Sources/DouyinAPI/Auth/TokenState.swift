/// Which token calls use and when a fetch starts: a pure state machine, so the single-flight
/// rules are tested without a server. ``TokenRefresher`` holds it under a lock and performs
/// what it returns.
package struct TokenState: Sendable, Equatable {
    /// Where the token stands.
    package enum Phase: Sendable, Equatable {
        /// None yet: the next call fetches one.
        case empty
        /// A fetch is running (the first token when `rejected` is `nil`, else a refresh
        /// replacing `rejected`); calls wait for it.
        case fetching(rejected: String?)
        /// The token calls use now.
        case ready(String)
        /// The fetch replacing `rejected` failed with `reason`: a late 401 for that same token
        /// fails the same way (it does not start another refresh); any other call starts over.
        case failed(rejected: String?, reason: String)
    }

    /// What a call asking for a token does.
    package enum Need: Sendable, Equatable {
        /// Use this token now.
        case use(String)
        /// Wait for the running fetch.
        case wait
        /// Start a fetch, then wait for it: the first token when `rejected` is `nil`, else a
        /// refresh replacing `rejected`.
        case fetch(rejected: String?)
        /// Fail with the reason the fetch for this token failed.
        case fail(String)
    }

    /// Where the token stands now.
    package private(set) var phase: Phase = .empty
    /// Fetches started so far (first tokens and refreshes).
    package private(set) var fetches = 0
    /// Refreshes among them.
    package private(set) var refreshes = 0

    /// A state with no token.
    package init() {}

    /// A call needs a token; `rejected` is the token the server just answered 401 to (`nil` for
    /// a call's first attempt). A rejected token that is still current starts a refresh; one
    /// already replaced gets the replacement; while a fetch runs, everyone waits.
    package mutating func need(rejected: String?) -> Need {
        switch phase {
        case .ready(let token) where token == rejected:
            return startFetch(rejected: token)
        case .ready(let token):
            return .use(token)
        case .fetching:
            return .wait
        case .failed(let failed, let reason) where rejected != nil && failed == rejected:
            return .fail(reason)
        case .empty, .failed:
            return startFetch(rejected: rejected)
        }
    }

    private mutating func startFetch(rejected: String?) -> Need {
        phase = .fetching(rejected: rejected)
        fetches += 1
        if rejected != nil { refreshes += 1 }
        return .fetch(rejected: rejected)
    }

    /// The running fetch ended: with the new token, or failed with `reason`.
    package mutating func fetched(_ result: Result<String, Failure>) {
        guard case .fetching(let rejected) = phase else { preconditionFailure("invalid state: no fetch is running") }
        switch result {
        case .success(let token): phase = .ready(token)
        case .failure(let failure): phase = .failed(rejected: rejected, reason: failure.reason)
        }
    }

    /// Whether `token` is still the one to send: false once a refresh replacing it started.
    package func isCurrent(_ token: String) -> Bool {
        phase == .ready(token)
    }

    /// Why a fetch failed, as text.
    package struct Failure: Error, Sendable, Equatable {
        /// The provider's error, described.
        package var reason: String

        /// A failure saying `reason`.
        package init(reason: String) { self.reason = reason }
    }
}
