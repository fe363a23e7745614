import Foundation

/// The feed's playback rules as pure functions: no UI, no state, no clock. The stateful rules
/// (direction lock, taps, load-more) are small value types beside it: ``DirectionLock``,
/// ``TapSequence``, ``LoadMoreState``; the one-player rule is ``ActivePlayerRegistry``.
public enum FeedPolicy {}
