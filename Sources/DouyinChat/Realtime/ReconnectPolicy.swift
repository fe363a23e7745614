/// When ``ChatConnection`` tries again after a failure: exponential backoff with full jitter.
///
/// The n-th retry (n from 0) waits a uniformly random time in `0 ... min(cap, base × 2ⁿ)`
/// ("full jitter": clients that lost the same server at once do not come back at once). The
/// count starts again from 0 once a connection has stayed open ``stableAfter``.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first retry's upper bound. 1 s by default.
    public var base: Duration
    /// No retry waits longer than this. 60 s by default.
    public var cap: Duration
    /// A connection open at least this long resets the retry count. 30 s by default.
    public var stableAfter: Duration

    /// A policy; every argument has the documented default.
    public init(base: Duration = .seconds(1), cap: Duration = .seconds(60), stableAfter: Duration = .seconds(30)) {
        self.base = base
        self.cap = cap
        self.stableAfter = stableAfter
    }

    /// The upper bound of retry `attempt` (0-based): `min(cap, base × 2^attempt)`.
    public func ceiling(attempt: Int) -> Duration {
        var bound = base
        for _ in 0..<min(max(attempt, 0), 62) {
            bound = bound * 2
            if bound >= cap { return cap }
        }
        return min(bound, cap)
    }

    /// A random wait for retry `attempt`, uniform in `0 ... ceiling(attempt)` at millisecond
    /// resolution.
    public func delay<R: RandomNumberGenerator>(attempt: Int, using random: inout R) -> Duration {
        let (seconds, attoseconds) = ceiling(attempt: attempt).components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return .milliseconds(Int64.random(in: 0...max(milliseconds, 0), using: &random))
    }
}
