import DouyinSupport
import Foundation

/// A ``BandwidthEstimator`` shared by every download of a session, stamped by a clock (a
/// test clock in tests). ``MeteredOrigin`` feeds it the bytes the caches really receive.
public final class BandwidthMeter: Sendable {
    private let state: LockedBox<BandwidthEstimator>
    private let now: @Sendable () -> Duration

    /// A meter with `configuration`, reading time from `clock`.
    public init<C: Clock>(configuration: BandwidthEstimator.Configuration = BandwidthEstimator.Configuration(), clock: C)
    where C.Duration == Duration {
        state = LockedBox(BandwidthEstimator(configuration: configuration))
        let start = clock.now
        now = { start.duration(to: clock.now) }
    }

    /// A meter on the continuous clock.
    public convenience init(configuration: BandwidthEstimator.Configuration = BandwidthEstimator.Configuration()) {
        self.init(configuration: configuration, clock: ContinuousClock())
    }

    /// A transfer opened now; returns when, on the meter's clock (for ``responseArrived(sentAt:)``).
    @discardableResult
    public func transferStarted() -> Duration {
        let time = now()
        state.withLock { $0.transferStarted(at: time) }
        return time
    }

    /// `count` body bytes arrived now.
    public func bytesReceived(_ count: Int64) {
        let time = now()
        state.withLock { $0.bytesReceived(count, at: time) }
    }

    /// A transfer ended now.
    public func transferEnded() {
        let time = now()
        state.withLock { $0.transferEnded(at: time) }
    }

    /// The head of a response whose request went out at `sentAt` (what ``transferStarted()``
    /// returned) arrived now.
    public func responseArrived(sentAt: Duration) {
        let elapsed = now() - sentAt
        state.withLock { $0.responseTimed(elapsed) }
    }

    /// The time to a response's head to plan for at worst (``BandwidthEstimator/latencyBound``);
    /// `nil` before a head arrived.
    public var latencyBound: Duration? { state.withLock { $0.latencyCount > 0 ? $0.latencyBound : nil } }

    /// The estimate in bits per second (the warm start until enough is measured).
    public var estimate: Int64 { state.withLock { $0.estimate } }

    /// A copy of the arithmetic's state: measured time and bytes, samples, whether trusted.
    public var snapshot: BandwidthEstimator { state.withLock { $0 } }
}
