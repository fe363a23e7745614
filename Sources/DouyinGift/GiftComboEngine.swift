/// The live-room gift combo queue engine: a deterministic state machine with no threads and
/// no timers.
///
/// Feed it sends with ``send(_:at:)`` and the passing of time with ``advance(to:)``, both on
/// one clock of your choosing (a manual one in tests, ``GiftComboRunner``'s real one in apps);
/// it answers with the ``GiftEvent``s to display, in order. The rules:
///
/// 1. A send whose key is on screen is a **combo**: the count grows, the hide timer restarts.
/// 2. A send whose key is waiting **accumulates** into the waiting unit.
/// 3. Otherwise it makes a **new unit** on the track with the fewest units (on screen plus
///    waiting; ties: lowest index), shown at once when that track is free.
/// 4. A single send is never split: the send that makes a unit reach or pass
///    ``Configuration/maxCombo`` stays whole in that unit (10 with a cap of 5, or 105 from 95),
///    which then closes; later sends of that key start a new run.
/// 5. A unit hides ``Configuration/comboWindow`` after its show or last combo; the next
///    waiting unit of its track shows at that moment.
/// 6. `firstDisplay` fires once per unit, right after its first `show`.
/// 7. Priority orders waiting units; the queue bound drops the lowest-priority, newest waiting
///    unit that is not the local user's, reported as `dropped`.
/// 8. Absolute counts set the total; a stale one (not above the count) is ignored.
/// 9. Counts are conserved: `hide` and `dropped` totals equal all increments sent.
///
/// At equal times, timers fire before a send. A time earlier than the engine's current time
/// is treated as the current time, so the clock never runs backwards.
///
/// Values the engine cannot represent are refused with a ``GiftError`` and leave it unchanged:
/// a count or value beyond ``GiftSend/maximumCount``, a time after ``maximumTime``, a
/// configuration outside its ranges. All arithmetic is in integers.
public struct GiftComboEngine: Sendable {
    /// The rules' parameters.
    public let configuration: Configuration

    /// The latest time the engine takes, 2⁵³ ms (about 285,000 years): every time it reports,
    /// a deadline included, then stays exact even for a reader that parses milliseconds into a
    /// `Double` (JavaScript, JSON tools), and far from `Duration`'s own limits.
    public static let maximumTime: Duration = .milliseconds(Int64(1) << 53)
    /// The latest time the engine has seen.
    public private(set) var now: Duration = .zero

    private struct Unit: Sendable {
        let key: GiftKey
        let track: Int
        let priority: Int64
        /// Less than 2 × ``GiftSend/maximumCount``: below the cap, plus one whole send.
        var count: Int
        /// When it hides; `nil` while it waits.
        var hideAt: Duration?
    }

    private struct Track: Sendable {
        var onScreen: Int?
        var waiting = WaitingQueue()
        var unitCount: Int { (onScreen == nil ? 0 : 1) + waiting.count }
    }

    private var units: [Int: Unit] = [:]
    private var tracks: [Track]
    /// The one unit per key that still takes sends (not closed by the cap).
    private var openUnit: [GiftKey: Int] = [:]
    private var nextUnitID = 0

    /// Makes an idle engine with the default configuration (2 tracks, a 3 s combo window, cap
    /// 99), which is always valid, so this cannot fail.
    public init() {
        self.init(checked: Configuration())
    }

    /// Makes an idle engine.
    ///
    /// - Throws: ``GiftError/configurationOutOfRange(field:value:allowed:)`` for a field
    ///   outside its documented range (CONTRIBUTING.md: configuration values are checked where
    ///   they are used, never clamped).
    public init(configuration: Configuration) throws(GiftError) {
        try configuration.validate()
        self.init(checked: configuration)
    }

    private init(checked configuration: Configuration) {
        self.configuration = configuration
        tracks = Array(repeating: Track(), count: configuration.tracks)
    }

    /// When the next timer fires (the earliest hide), or `nil` when nothing is on screen.
    public var nextDeadline: Duration? {
        tracks.compactMap { $0.onScreen.flatMap { units[$0]?.hideAt } }.min()
    }

    /// How many units wait on each track, by track number.
    public var waitingCounts: [Int] { tracks.map(\.waiting.count) }

    /// The keys and counts on screen and waiting on one track, in display order.
    public func snapshot(ofTrack track: Int) -> [(key: GiftKey, count: Int)] {
        guard tracks.indices.contains(track) else { return [] }
        let ids = (tracks[track].onScreen.map { [$0] } ?? []) + tracks[track].waiting.ordered
        return ids.compactMap { units[$0].map { ($0.key, $0.count) } }
    }

    /// The count of the unit that takes `key`'s next send (on screen or waiting), if any.
    public func openCount(of key: GiftKey) -> Int? {
        openUnit[key].flatMap { units[$0]?.count }
    }

    /// Applies one send at `time`, first firing every timer due by then.
    ///
    /// - Throws: ``GiftError`` for a count, value or time the engine cannot take; nothing
    ///   changes then, not even the clock.
    public mutating func send(_ send: GiftSend, at time: Duration) throws(GiftError) -> [GiftEvent] {
        var events: [GiftEvent] = []
        try self.send(send, at: time, into: &events)
        return events
    }

    /// Applies one send at `time`, appending the events to `events` (no allocation per call).
    ///
    /// - Throws: as ``send(_:at:)``; `events` is unchanged then.
    public mutating func send(_ send: GiftSend, at time: Duration, into events: inout [GiftEvent]) throws(GiftError) {
        switch send.count {
        case .increment(let count), .absolute(let count):
            guard count <= GiftSend.maximumCount else { throw .countOutOfRange(send.count, key: send.key) }
        }
        guard send.value.magnitude <= GiftSend.maximumCount else { throw .valueOutOfRange(send.value, key: send.key) }
        try advance(to: time, into: &events)
        let increase: Int
        switch send.count {
        case .increment(let count):
            increase = count
        case .absolute(let total):
            // Compared before subtracting: a stale total as low as Int.min must not overflow.
            let open = openCount(of: send.key) ?? 0
            guard total > open else { return }
            increase = total - open
        }
        guard increase > 0 else { return }
        if let id = openUnit[send.key] {
            grow(id, by: increase, into: &events)
        } else {
            makeUnit(for: send, count: increase, into: &events)
        }
    }

    /// Fires every timer due at or before `time`, in time order (ties: lowest track).
    ///
    /// - Throws: ``GiftError/timeOutOfRange(_:)`` for a time after ``maximumTime``.
    public mutating func advance(to time: Duration) throws(GiftError) -> [GiftEvent] {
        var events: [GiftEvent] = []
        try advance(to: time, into: &events)
        return events
    }

    /// Fires every timer due at or before `time`, appending the events to `events`.
    ///
    /// - Throws: ``GiftError/timeOutOfRange(_:)`` for a time after ``maximumTime``.
    public mutating func advance(to time: Duration, into events: inout [GiftEvent]) throws(GiftError) {
        guard time <= Self.maximumTime else { throw .timeOutOfRange(time) }
        fireTimers(until: time, into: &events)
    }

    /// Lets all remaining time pass: every unit on screen and waiting shows and hides in order.
    public mutating func flush() -> [GiftEvent] {
        var events: [GiftEvent] = []
        while let deadline = nextDeadline {
            fireTimers(until: deadline, into: &events)
        }
        return events
    }

    // MARK: - Rules

    private mutating func fireTimers(until time: Duration, into events: inout [GiftEvent]) {
        while let (track, deadline) = earliestHide(), deadline <= time {
            now = max(now, deadline)
            hide(onTrack: track, into: &events)
        }
        now = max(now, time)
    }

    /// Adds a whole send to an open unit (combo on screen, accumulation while waiting); a
    /// unit that reaches or passes the cap closes to later sends.
    private mutating func grow(_ id: Int, by increase: Int, into events: inout [GiftEvent]) {
        guard var unit = units[id] else { return }
        unit.count += increase  // Below the cap before, so below 2 × GiftSend.maximumCount after.
        if unit.hideAt != nil {
            unit.hideAt = now + configuration.comboWindow
            events.append(GiftEvent(kind: .combo, time: now, track: unit.track, key: unit.key, count: unit.count, unit: id))
        }
        if unit.count >= configuration.maxCombo { openUnit[unit.key] = nil }
        units[id] = unit
    }

    private mutating func makeUnit(for send: GiftSend, count: Int, into events: inout [GiftEvent]) {
        let id = nextUnitID
        nextUnitID += 1
        var track = 0
        for index in tracks.indices where tracks[index].unitCount < tracks[track].unitCount {
            track = index
        }
        let priority = configuration.priority.priority(of: send)
        units[id] = Unit(key: send.key, track: track, priority: priority, count: count)
        if count < configuration.maxCombo { openUnit[send.key] = id }
        if tracks[track].onScreen == nil {
            show(id, onTrack: track, into: &events)
        } else {
            tracks[track].waiting.push(id, priority: priority, droppable: !send.isLocalUser)
            enforceQueueBound(onTrack: track, into: &events)
        }
    }

    private mutating func enforceQueueBound(onTrack track: Int, into events: inout [GiftEvent]) {
        guard let bound = configuration.queueBound, tracks[track].waiting.count > bound else { return }
        guard let victim = tracks[track].waiting.dropLowest(), let unit = units.removeValue(forKey: victim) else {
            return  // Only the local user's units wait: they are never dropped, the bound yields.
        }
        if openUnit[unit.key] == victim { openUnit[unit.key] = nil }
        events.append(GiftEvent(kind: .dropped, time: now, track: track, key: unit.key, count: unit.count, unit: victim))
    }

    private mutating func show(_ id: Int, onTrack track: Int, into events: inout [GiftEvent]) {
        guard var unit = units[id] else { return }
        unit.hideAt = now + configuration.comboWindow
        units[id] = unit
        tracks[track].onScreen = id
        events.append(GiftEvent(kind: .show, time: now, track: track, key: unit.key, count: unit.count, unit: id))
        events.append(GiftEvent(kind: .firstDisplay, time: now, track: track, key: unit.key, count: unit.count, unit: id))
    }

    private mutating func hide(onTrack track: Int, into events: inout [GiftEvent]) {
        guard let id = tracks[track].onScreen, let unit = units.removeValue(forKey: id) else { return }
        tracks[track].onScreen = nil
        if openUnit[unit.key] == id { openUnit[unit.key] = nil }
        events.append(GiftEvent(kind: .hide, time: now, track: track, key: unit.key, count: unit.count, unit: id))
        if let next = tracks[track].waiting.popFirst() {
            show(next, onTrack: track, into: &events)
        }
    }

    private func earliestHide() -> (track: Int, deadline: Duration)? {
        var best: (track: Int, deadline: Duration)?
        for index in tracks.indices {
            guard let id = tracks[index].onScreen, let deadline = units[id]?.hideAt else { continue }
            if best == nil || deadline < best!.deadline { best = (index, deadline) }
        }
        return best
    }
}
