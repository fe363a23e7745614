import DouyinSupport
import Foundation

/// The session's player, as arithmetic: once started, the read position moves at the gear's
/// bitrate from the end of the start bytes; a stall is any time it has caught up with the
/// bytes held (and the file is not done). Times are offsets on one clock.
///
/// Event-driven, no ticking: each time the held run grows, the model works out when the read
/// position reached the old end and counts the time since as stalled.
public struct PlaybackModel: Sendable, Hashable {
    /// Where reading starts: the end of the start bytes' head.
    public let startOffset: Int64
    /// The file's length in bytes.
    public let length: Int64
    /// Bytes per second the position moves (the gear's bitrate / 8).
    public let bytesPerSecond: Double
    /// When playback started.
    public let startedAt: Duration
    /// The end of the run of bytes held from ``startOffset``.
    public private(set) var heldEnd: Int64
    /// Time spent stalled so far (up to the last event).
    public private(set) var stalled: Duration = .zero

    /// A player that starts at `startedAt`, reading from `startOffset` of a file of `length`
    /// bytes at `bitRate` bits per second, with the bytes up to `heldEnd` held.
    public init(startOffset: Int64, length: Int64, bitRate: Int, startedAt: Duration, heldEnd: Int64) {
        self.startOffset = startOffset
        self.length = max(startOffset, length)
        bytesPerSecond = Double(max(1, bitRate)) / 8
        self.startedAt = startedAt
        self.heldEnd = min(self.length, max(startOffset, heldEnd))
    }

    /// When the read position reaches the held end (if nothing more arrives); `nil` once the
    /// whole file is held.
    public var catchUpTime: Duration? {
        guard heldEnd < length else { return nil }
        return startedAt + stalled + .clampedSeconds(Double(heldEnd - startOffset) / bytesPerSecond)
    }

    /// The held run now ends at `end` (a smaller value is ignored), learned at `time`.
    public mutating func held(upTo end: Int64, at time: Duration) {
        accrueStall(until: time)
        heldEnd = min(length, max(heldEnd, end))
    }

    /// The read position at `time` (not before the start offset, not past the held end).
    public func position(at time: Duration) -> Int64 {
        var copy = self
        copy.accrueStall(until: time)
        let moved = Double(max(.zero, time - startedAt - copy.stalled).inSeconds) * bytesPerSecond
        return min(heldEnd, startOffset + Int64(min(moved, Double(length))))
    }

    /// The stall time up to `time`, counting a stall still going on.
    public func stall(until time: Duration) -> Duration {
        var copy = self
        copy.accrueStall(until: time)
        return copy.stalled
    }

    private mutating func accrueStall(until time: Duration) {
        guard let caughtUp = catchUpTime, caughtUp < time else { return }
        stalled += time - caughtUp
    }
}
