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

extension Duration {
    /// The duration in milliseconds as exact decimal text: whole milliseconds when it has no
    /// fraction of one (`"1500"`), else the fraction's digits without trailing zeros (`"1.5"`,
    /// `"1000.000001"`); `-` in front of a negative one. Integer arithmetic only, so it is exact
    /// for every duration: a `Double` rounds above 2⁵³ ms and traps converting back above 2⁶³.
    package var exactMillisecondsText: String {
        let (seconds, attoseconds) = components  // Both carry the duration's sign.
        let perMillisecond: UInt64 = 1_000_000_000_000_000
        // ms = seconds × 1000 + attoseconds / 10¹⁵, split at 10⁹ ms so nothing overflows.
        let (high, low) = seconds.magnitude.quotientAndRemainder(dividingBy: 1_000_000)
        let lowMilliseconds = low * 1000 + attoseconds.magnitude / perMillisecond
        let lowText = String(lowMilliseconds)
        var text = high == 0 ? lowText : String(high) + String(repeating: "0", count: 9 - lowText.count) + lowText
        if self < .zero { text = "-" + text }
        let fraction = attoseconds.magnitude % perMillisecond
        guard fraction != 0 else { return text }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 15 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return text + "." + digits
    }
}
