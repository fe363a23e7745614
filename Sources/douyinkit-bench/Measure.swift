import Foundation

/// The best of several timed runs, in seconds: the minimum is the figure least disturbed by
/// whatever else the machine is doing.
func bestTime(runs: Int = 7, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        best = min(best, seconds(elapsed))
    }
    return best
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
