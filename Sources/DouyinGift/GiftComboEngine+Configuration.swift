import DouyinSupport

extension GiftComboEngine {
    /// Everything that shapes the engine's behaviour, with the original app's defaults.
    ///
    /// Fields are plain values; ``GiftComboEngine/init(configuration:)`` checks them against the
    /// documented ranges and throws ``GiftError/configurationOutOfRange(field:value:allowed:)``
    /// rather than clamping in silence.
    public struct Configuration: Hashable, Sendable {
        /// Display tracks, numbered from 0. 2 by default; 1 to ``maximumTracks``.
        public var tracks: Int
        /// How long a unit stays after its show or its last combo. 3 s by default; from zero to
        /// ``GiftComboEngine/maximumTime``.
        public var comboWindow: Duration
        /// The count at which a unit closes: the send that reaches or passes it stays whole in
        /// the unit, and later sends of that key start a new run. 99 by default; 1 to
        /// ``GiftSend/maximumCount``.
        public var maxCombo: Int
        /// Which waiting unit shows next. ``GiftPriorityPolicy/arrivalOrder`` by default.
        public var priority: GiftPriorityPolicy
        /// At most this many waiting units per track (beyond it the lowest-priority one is
        /// dropped and reported); `nil`, the default, means unbounded; never negative.
        public var queueBound: Int?

        /// The most tracks an engine drives: 1,000 (a live room shows 2). Each track costs a
        /// little memory and time per timer check, and the runner an `OperationQueue`.
        public static let maximumTracks = 1_000

        /// Builds a configuration; the engine checks the ranges.
        public init(
            tracks: Int = 2, comboWindow: Duration = .seconds(3), maxCombo: Int = 99,
            priority: GiftPriorityPolicy = .arrivalOrder, queueBound: Int? = nil
        ) {
            self.tracks = tracks
            self.comboWindow = comboWindow
            self.maxCombo = maxCombo
            self.priority = priority
            self.queueBound = queueBound
        }

        /// Throws for the first field outside its range.
        func validate() throws(GiftError) {
            guard (1...Self.maximumTracks).contains(tracks) else {
                throw .configurationOutOfRange(field: "tracks", value: String(tracks), allowed: "1...\(Self.maximumTracks)")
            }
            guard comboWindow >= .zero, comboWindow <= GiftComboEngine.maximumTime else {
                throw .configurationOutOfRange(
                    field: "comboWindow", value: comboWindow.exactMillisecondsText + " ms",
                    allowed: "0...\(GiftComboEngine.maximumTime.exactMillisecondsText) ms"
                )
            }
            guard (1...GiftSend.maximumCount).contains(maxCombo) else {
                throw .configurationOutOfRange(field: "maxCombo", value: String(maxCombo), allowed: "1...\(GiftSend.maximumCount)")
            }
            if let queueBound, queueBound < 0 {
                throw .configurationOutOfRange(field: "queueBound", value: String(queueBound), allowed: "0 or more, or nil")
            }
        }
    }
}
