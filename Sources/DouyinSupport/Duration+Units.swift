extension Duration {
    /// The duration in seconds, fraction included (a `TimeInterval` for Foundation's APIs);
    /// negative for a negative duration. Exact to about a nanosecond for durations under a
    /// few months (a `Double`'s 53 bits), which every timeout and age in the package is.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded toward zero (so 1.9 ms is 1 and -1.9 ms is
    /// -1); clamped to `Int64`'s range rather than trapping for an absurdly long duration.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components  // both carry the duration's sign
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if overflowAgain { return seconds < 0 ? .min : .max }
        return sum
    }
}
