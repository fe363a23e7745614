import DouyinSupport
import Foundation

/// A wall clock (`Date`) that moves only when a test says so; for components that stamp
/// entries with dates. Components that wait take a ``TestClock`` instead.
public final class ManualClock: Sendable {
    private let current: LockedBox<Date>

    /// Starts at `start` (a fixed date by default, so runs are repeatable).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = LockedBox(start)
    }

    /// The clock's time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
