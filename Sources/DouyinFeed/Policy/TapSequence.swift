import Foundation

/// Tells a single tap (pause/play) from a run of quick taps (likes with a heart), as a pure
/// state machine on the caller's clock: feed taps with ``tap(at:time:)`` and the passing of time
/// with ``advance(to:)``; both return the events due.
///
/// Rules: a single tap fires ``Configuration/interval`` (0.25 s) after a tap that no second
/// tap followed; each further tap less than the interval after the previous one is a multi-tap
/// (count 2, 3, …, with its point) and cancels the pending single. Times are offsets on one
/// clock (any origin); a time earlier than the last one seen is taken as that time.
public struct TapSequence: Sendable {
    /// A point in view coordinates, in points.
    public struct Point: Sendable, Hashable {
        /// Horizontal position.
        public var x: Double
        /// Vertical position, growing downwards.
        public var y: Double
        /// A point.
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// What a tap turned out to be.
    public enum Event: Sendable, Hashable {
        /// One tap and no second within the interval; fired at its deadline.
        case single(Point)
        /// The `count`th tap of a quick run (2 for a double tap), at `point`.
        case multi(count: Int, point: Point)
    }

    /// The timing.
    public struct Configuration: Sendable, Hashable {
        /// The longest gap between two taps of one run: 0.25 s by default.
        public var interval: Duration = .milliseconds(250)
        /// The defaults.
        public init() {}
    }

    /// The timing in use.
    public let configuration: Configuration
    private var lastTap: (time: Duration, point: Point, count: Int)?
    private var now: Duration = .zero

    /// A sequence with no taps yet.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// When the pending single tap fires, if one is pending (for the caller's timer).
    public var singleDeadline: Duration? {
        guard let lastTap, lastTap.count == 1 else { return nil }
        return lastTap.time + configuration.interval
    }

    /// A tap at `point` at `time`: returns a single tap that came due before it, then the
    /// multi-tap this one makes, if any.
    public mutating func tap(at point: Point, time: Duration) -> [Event] {
        var events = advance(to: time)
        let time = now
        if let last = lastTap, time - last.time < configuration.interval {
            lastTap = (time, point, last.count + 1)
            events.append(.multi(count: last.count + 1, point: point))
        } else {
            lastTap = (time, point, 1)
        }
        return events
    }

    /// Moves time to `time`: returns the single tap whose deadline has passed, if any.
    public mutating func advance(to time: Duration) -> [Event] {
        now = max(now, time)
        // At exactly the interval the single fires: a tap then starts a new run.
        guard let last = lastTap, now - last.time >= configuration.interval else { return [] }
        lastTap = nil
        return last.count == 1 ? [.single(last.point)] : []
    }
}
