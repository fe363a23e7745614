import Foundation

/// Decides once per pan whether it is horizontal (the side action, such as opening the
/// author's page) or vertical (scrolling the feed), and keeps that decision to the pan's end,
/// so a vertical scroll that drifts sideways never fires the horizontal action.
///
/// Feed it the translation from the pan's start (not the last step) with ``update(dx:dy:)``
/// and the end with ``end(dx:dy:velocityX:velocityY:)``.
public struct DirectionLock: Sendable, Hashable {
    /// What the pan is.
    public enum Decision: Sendable, Hashable {
        /// Not decided yet: neither axis has passed its dead zone.
        case undecided
        /// Horizontal: |dx| > |dy| and |dx| past the horizontal dead zone.
        case horizontal
        /// Vertical: the feed scrolls; the horizontal action never fires for this pan.
        case vertical
    }

    /// The thresholds.
    public struct Configuration: Sendable, Hashable {
        /// The smallest horizontal dead zone, in points: 30 pt by default.
        public var minimumDeadZone: Double = 30
        /// The horizontal dead zone as a fraction of the view's width: 0.1 (10 %) by default;
        /// the larger of this and ``minimumDeadZone`` applies.
        public var deadZoneFraction: Double = 0.1
        /// How far (points) the finger moves vertically, more than sideways, before the pan is
        /// a scroll: 10 pt by default (a scroll view's own slop).
        public var verticalSlop: Double = 10
        /// The horizontal speed (points per second) that makes a short pan that ended
        /// undecided a horizontal flick: 500 pt/s by default.
        public var flickVelocity: Double = 500

        /// The defaults.
        public init() {}
    }

    /// The dead zone in points for this view: max(``Configuration/minimumDeadZone``, width × fraction).
    public let deadZone: Double
    /// The thresholds in use.
    public let configuration: Configuration
    /// The decision so far.
    public private(set) var decision: Decision = .undecided

    /// A lock for a view `width` points wide.
    public init(width: Double, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let fraction = width.isFinite ? max(0, width) * configuration.deadZoneFraction : 0
        deadZone = max(configuration.minimumDeadZone, fraction)
    }

    /// Takes the translation from the pan's start; returns the decision (unchanged once made).
    @discardableResult
    public mutating func update(dx: Double, dy: Double) -> Decision {
        guard decision == .undecided, dx.isFinite, dy.isFinite else { return decision }
        if abs(dx) > abs(dy), abs(dx) > deadZone {
            decision = .horizontal
        } else if abs(dy) >= abs(dx), abs(dy) > configuration.verticalSlop {
            decision = .vertical
        }
        return decision
    }

    /// Ends the pan: a pan still undecided is a horizontal flick when it moved more sideways
    /// than vertically and its horizontal speed (pt/s) passes ``Configuration/flickVelocity``
    /// and exceeds its vertical speed; otherwise it stays what it was (undecided means no action).
    public mutating func end(dx: Double, dy: Double, velocityX: Double, velocityY: Double) -> Decision {
        update(dx: dx, dy: dy)
        guard decision == .undecided, velocityX.isFinite, velocityY.isFinite else { return decision }
        if abs(dx) > abs(dy), abs(velocityX) >= configuration.flickVelocity, abs(velocityX) > abs(velocityY) {
            decision = .horizontal
        }
        return decision
    }
}
