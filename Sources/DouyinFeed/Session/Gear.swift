import DouyinSupport
import Foundation

/// One quality level of a video: its own file and its bitrate.
public struct Gear: Sendable, Hashable {
    /// The gear's file.
    public var url: URL
    /// Bits per second of the file (its average); positive.
    public var bitRate: Int
    /// The feed's name for it (`gear_name`), `nil` when absent.
    public var name: String?

    /// A gear from its parts; a bitrate below 1 is taken as 1.
    public init(url: URL, bitRate: Int, name: String? = nil) {
        self.url = url
        self.bitRate = max(1, bitRate)
        self.name = name
    }

    /// Bytes of `duration` of this gear's media at its bitrate.
    public func bytes(for duration: Duration) -> Int64 {
        Int64((duration.inSeconds * Double(bitRate) / 8).rounded(.up))
    }

    /// The highest gear whose bitrate fits `safety` (0...1) of `estimate` bits per second;
    /// the lowest when none fits; `nil` for no gears. The session uses the one gear for an
    /// item's preload and its playback, so the choice is made once per item.
    public static func choose(from gears: [Gear], estimate: Int64, safety: Double) -> Gear? {
        let budget = Double(max(0, estimate)) * min(1, max(0, safety))
        let sorted = gears.sorted { $0.bitRate < $1.bitRate }
        return sorted.last { Double($0.bitRate) <= budget } ?? sorted.first
    }

    /// Whether playing `gear` now, with `remaining` of its media still to come and `held` bytes
    /// ahead of the read position, would outrun `estimate` bits per second (`safety` of it
    /// counted) before the end: then a session switches down and says so.
    public static func wouldStall(_ gear: Gear, heldAhead: Int64, remaining: Duration, estimate: Int64, safety: Double) -> Bool {
        let needed = Double(gear.bytes(for: remaining) - heldAhead)
        guard needed > 0 else { return false }
        let deliverable = Double(max(0, estimate)) * min(1, max(0, safety)) / 8 * remaining.inSeconds
        return needed > deliverable
    }
}

extension Duration {
    /// `seconds` as a duration, whole nanoseconds (negative and non-finite values give zero,
    /// and a huge one about 146 years): the session's rules compute times in seconds and must
    /// not trap on a rate of zero. Reading a duration as seconds or milliseconds is
    /// DouyinSupport's `inSeconds` and `wholeMilliseconds`.
    static func clampedSeconds(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds * 1e9, Double(Int64.max / 2))))
    }
}
