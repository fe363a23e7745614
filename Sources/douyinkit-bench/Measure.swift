import Foundation

/// The best of several timed runs, in seconds: the minimum is the figure least disturbed by
/// whatever else the machine is doing. For absolute figures only; every comparison between a
/// subject and its baseline goes through ``interleavedPairs(pairs:warmups:baseline:subject:)``.
func bestTime(runs: Int = 7, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        best = min(best, try timed(body))
    }
    return best
}

/// The seconds `body` takes once.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return seconds(ContinuousClock.now - start)
}

/// The seconds `body` takes once.
func timed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return seconds(ContinuousClock.now - start)
}

/// What a ratio divides, and so which way is better.
enum RatioKind {
    /// Subject's time over the baseline's: lower is better (0.5× = twice as fast).
    case time
    /// Baseline's time over the subject's, a throughput ratio: higher is better (2× = twice the throughput).
    case speedup
}

/// Baseline and subject measured alternately, A B A B …, so drift on a shared machine (another
/// build, thermal changes) lands on both sides of every pair instead of on one whole side.
/// The figure is the median of the pairwise ratios, with their spread.
struct PairedComparison {
    /// One measurement of the baseline per recorded pair (seconds, or the suite's own unit).
    var baseline: [Double] = []
    /// One measurement of the subject per recorded pair, in the same unit.
    var subject: [Double] = []

    /// Subject over baseline, pair by pair.
    var timeRatios: [Double] { zip(subject, baseline).map { $0 / $1 } }

    /// The pairwise ratios of `kind`.
    func ratios(_ kind: RatioKind) -> [Double] {
        kind == .time ? timeRatios : timeRatios.map { 1 / $0 }
    }

    /// The median baseline measurement.
    var medianBaseline: Double { median(baseline) }
    /// The median subject measurement.
    var medianSubject: Double { median(subject) }

    /// `median 0.76× (min 0.70×, max 0.81×; 9 pairs; lower is better; target ≤ 2.00×)`.
    func summary(_ kind: RatioKind, target: Double? = nil) -> String {
        let values = ratios(kind)
        let direction = kind == .time ? "lower is better" : "higher is better"
        let goal = target.map { "; target \(kind == .time ? "≤" : "≥") \(fixed($0))×" } ?? ""
        return "median \(fixed(median(values)))× (min \(fixed(values.min() ?? .nan))×, max \(fixed(values.max() ?? .nan))×;"
            + " \(values.count) pairs; \(direction)\(goal))"
    }
}

/// Runs `warmups` unrecorded pairs, then `pairs` recorded ones: the baseline, then the subject,
/// each returning its measurement (usually from ``timed(_:)-(()->Void)``). At least 7 pairs.
func interleavedPairs(
    pairs: Int = 9, warmups: Int = 1, baseline: () throws -> Double, subject: () throws -> Double
) rethrows -> PairedComparison {
    var comparison = PairedComparison()
    for round in 0..<(warmups + max(7, pairs)) {
        let base = try baseline()
        let ours = try subject()
        guard round >= warmups else { continue }
        comparison.baseline.append(base)
        comparison.subject.append(ours)
    }
    return comparison
}

/// The async form of ``interleavedPairs(pairs:warmups:baseline:subject:)``.
func interleavedPairs(
    pairs: Int = 9, warmups: Int = 1, baseline: () async throws -> Double, subject: () async throws -> Double
) async rethrows -> PairedComparison {
    var comparison = PairedComparison()
    for round in 0..<(warmups + max(7, pairs)) {
        let base = try await baseline()
        let ours = try await subject()
        guard round >= warmups else { continue }
        comparison.baseline.append(base)
        comparison.subject.append(ours)
    }
    return comparison
}

/// The middle value (the mean of the two middle ones for an even count); NaN when empty.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Formats a number with a fixed count of decimals.
func fixed(_ value: Double, _ decimals: Int = 2) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Finds a fixture from the working directory (`make bench` runs at the package root).
func fixtureURL(_ relativePath: String) -> URL {
    URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
}

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

