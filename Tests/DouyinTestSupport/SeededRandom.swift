import Foundation

/// A seeded pseudo-random generator (SplitMix64) for tests, so a failing run can be replayed.
///
/// The seed is `$DOUYIN_TEST_SEED` when set, else the one the test passes. Put the generator
/// in every expectation's comment (`#expect(ok, "\(random)")`): it prints as
/// `seed=N (replay: DOUYIN_TEST_SEED=N)`, so a failure names its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable, CustomStringConvertible {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator from `$DOUYIN_TEST_SEED` if set, else from `seed`.
    public init(seed: UInt64) {
        let replay = ProcessInfo.processInfo.environment["DOUYIN_TEST_SEED"].flatMap(UInt64.init)
        self.seed = replay ?? seed
        state = self.seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes: each the low 8 bits of one ``next()``.
    ///
    /// The bytes `UInt8.random(in: 0...255, using:)` gives (so a seed names the same data as
    /// before), without its generic path: the megabytes of a feed's synthetic videos took
    /// seconds of a task-pool thread in debug builds, tens of seconds under Thread Sanitizer.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        // Not for none: `Array(unsafeUninitializedCapacity: 0)` writes the count of the empty
        // array every process shares, which Thread Sanitizer reported as a race with a read of
        // it on another thread (a whole-suite run failed on it).
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: next()) }
            initialized = count
        }
    }

    /// `seed=N (replay: DOUYIN_TEST_SEED=N)`.
    public var description: String { "seed=\(seed) (replay: DOUYIN_TEST_SEED=\(seed))" }
}
