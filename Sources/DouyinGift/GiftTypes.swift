/// One sender sending one kind of gift: the identity of a display unit, written `user:gift`.
public struct GiftKey: Hashable, Sendable, CustomStringConvertible {
    /// The sender's id.
    public var user: String
    /// The gift's id.
    public var gift: String

    /// Builds a key.
    public init(user: String, gift: String) {
        self.user = user
        self.gift = gift
    }

    /// `user:gift`.
    public var description: String { "\(user):\(gift)" }
}

/// How a send states its count.
public enum GiftCount: Hashable, Sendable {
    /// Adds this many (1 for a single tap). Counts below 1 are ignored.
    case increment(Int)
    /// The server's running total for this run ("now at 57"): sets, never adds; a total at or
    /// below what the unit already counts is stale and ignored.
    case absolute(Int)
}

/// One gift send as the room receives it.
public struct GiftSend: Hashable, Sendable {
    /// Who sent it and what.
    public var key: GiftKey
    /// How many, as an increment or the server's absolute total.
    public var count: GiftCount
    /// The gift's value (coins); used by the value-based ``GiftPriorityPolicy``.
    public var value: Int
    /// Whether the local user sent it: never dropped by the queue bound.
    public var isLocalUser: Bool

    /// Builds a send of `count` gifts (1 by default).
    public init(user: String, gift: String, count: Int = 1, value: Int = 0, isLocalUser: Bool = false) {
        self.init(key: GiftKey(user: user, gift: gift), count: .increment(count), value: value, isLocalUser: isLocalUser)
    }

    /// Builds a send with an explicit count form.
    public init(key: GiftKey, count: GiftCount, value: Int = 0, isLocalUser: Bool = false) {
        self.key = key
        self.count = count
        self.value = value
        self.isLocalUser = isLocalUser
    }
}

/// Which waiting units go first on a track. Never interrupts the unit on screen.
public enum GiftPriorityPolicy: Hashable, Sendable {
    /// First come, first shown (the original's behaviour). The default.
    case arrivalOrder
    /// Higher ``GiftSend/value`` first; equal values in arrival order.
    case giftValue
    /// The local user's own gifts first; otherwise arrival order.
    case localUserFirst
    /// The local user's own gifts first, then higher value.
    case localUserThenValue

    /// The priority a new unit gets from the send that creates it; higher shows sooner.
    func priority(of send: GiftSend) -> Int {
        let local = send.isLocalUser ? 1 << 40 : 0
        switch self {
        case .arrivalOrder: return 0
        case .giftValue: return send.value
        case .localUserFirst: return local
        case .localUserThenValue: return local + send.value
        }
    }
}

/// Everything that shapes the engine's behaviour, with the original's defaults.
public struct GiftConfiguration: Hashable, Sendable {
    /// Display tracks, numbered from 0. 2 by default; at least 1.
    public var tracks: Int
    /// How long a unit stays after its show or its last combo. 3 s by default.
    public var comboWindow: Duration
    /// The count at which a unit closes; later sends start a new run. 99 by default.
    public var maxCombo: Int
    /// Which waiting unit shows next. ``GiftPriorityPolicy/arrivalOrder`` by default.
    public var priority: GiftPriorityPolicy
    /// At most this many waiting units per track (beyond it the lowest-priority one is dropped
    /// and reported); `nil`, the default, means unbounded.
    public var queueBound: Int?

    /// Builds a configuration; values below their minimum are raised to it.
    public init(
        tracks: Int = 2, comboWindow: Duration = .seconds(3), maxCombo: Int = 99,
        priority: GiftPriorityPolicy = .arrivalOrder, queueBound: Int? = nil
    ) {
        self.tracks = max(1, tracks)
        self.comboWindow = max(.zero, comboWindow)
        self.maxCombo = max(1, maxCombo)
        self.priority = priority
        self.queueBound = queueBound.map { max(0, $0) }
    }
}

/// Something the display must do, at a moment of the engine's clock.
public struct GiftEvent: Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Hashable, Sendable {
        /// A unit appears on its track; `count` is its count so far.
        case show
        /// A unit's one-time entry animation; fires once per unit, right after its `show`.
        case firstDisplay
        /// A unit on screen grew; `count` is the new total.
        case combo
        /// A unit left the screen; `count` is its final total.
        case hide
        /// A waiting unit was dropped by the queue bound; `count` is what it held.
        case dropped
    }

    /// What happened.
    public var kind: Kind
    /// When, on the clock the engine was fed.
    public var time: Duration
    /// The track, numbered from 0.
    public var track: Int
    /// The unit's sender and gift.
    public var key: GiftKey
    /// The count the kind describes.
    public var count: Int
    /// The unit's id, unique within one engine.
    public var unit: Int

    /// Builds an event.
    public init(kind: Kind, time: Duration, track: Int, key: GiftKey, count: Int, unit: Int) {
        self.kind = kind
        self.time = time
        self.track = track
        self.key = key
        self.count = count
        self.unit = unit
    }
}

extension GiftEvent: CustomStringConvertible {
    /// The event as `gift-sim` prints it: `<ms> show track=T key=K count=N`, `<ms> hide track=T
    /// key=K total=N`, `<ms> dropped key=K count=N`, and likewise for `combo` and `firstDisplay`.
    public var description: String {
        let milliseconds = time / .milliseconds(1)
        let ms = milliseconds.rounded(.down) == milliseconds ? String(Int64(milliseconds)) : String(milliseconds)
        switch kind {
        case .hide: return "\(ms) hide track=\(track) key=\(key) total=\(count)"
        case .dropped: return "\(ms) dropped key=\(key) count=\(count)"
        default: return "\(ms) \(kind.rawValue) track=\(track) key=\(key) count=\(count)"
        }
    }
}
