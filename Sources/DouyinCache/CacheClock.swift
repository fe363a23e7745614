import Foundation

/// Where the caches read the time from: the system clock, or a manual one in tests.
public struct CacheClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Date

    /// A clock reading `now`.
    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The system's wall clock.
    public static let system = CacheClock { Date() }
}
