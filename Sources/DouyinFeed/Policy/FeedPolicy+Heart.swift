import Foundation

extension FeedPolicy {
    /// The largest tilt of the like heart, in radians: π/6 (30°).
    public static let maximumHeartTilt: Double = .pi / 6

    /// The tilt (radians, positive leans right) of the heart drawn at the last of a run of
    /// taps: the direction from the previous tap to the last one measured from vertical,
    /// clamped to ±`maximum`. 0 with fewer than two points, when the two share an x (the
    /// formula never divides, so no NaN), or for non-finite coordinates.
    public static func heartTilt(previous: TapSequence.Point?, last: TapSequence.Point, maximum: Double = maximumHeartTilt) -> Double {
        guard let previous else { return 0 }
        let dx = last.x - previous.x
        let dy = last.y - previous.y
        guard dx.isFinite, dy.isFinite, dx != 0 else { return 0 }
        // atan2 of (sideways, vertical distance): 0 for straight up/down, ±π/2 for sideways.
        let angle = atan2(dx, abs(dy))
        let limit = abs(maximum.isFinite ? maximum : maximumHeartTilt)
        return min(max(angle, -limit), limit)
    }
}
