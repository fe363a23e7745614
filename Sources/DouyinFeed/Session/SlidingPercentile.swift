import Foundation

/// A weighted percentile over the most recent samples, keeping at most a total weight: the
/// oldest samples leave (the last one to go only partly) as new ones come.
///
/// The bandwidth meter's memory: recent transfers count, old ones fade out by weight rather
/// than by time, so a quiet minute does not forget what the link did.
public struct SlidingPercentile: Sendable, Hashable {
    /// One observation and how much it counts.
    public struct Sample: Sendable, Hashable {
        /// The observed value (bits per second for the meter).
        public var value: Double
        /// How much it counts; positive.
        public var weight: Double
    }

    /// The most total weight kept; older samples are trimmed beyond it.
    public let maxWeight: Double
    /// The samples kept, oldest first.
    public private(set) var samples: [Sample] = []
    /// The sum of the kept samples' weights.
    public private(set) var totalWeight: Double = 0

    /// An empty window keeping at most `maxWeight` (at least 1) of weight.
    public init(maxWeight: Double) {
        self.maxWeight = max(1, maxWeight)
    }

    /// Adds a sample; a weight that is not positive or a value that is not finite is ignored.
    public mutating func add(_ value: Double, weight: Double) {
        guard weight > 0, weight.isFinite, value.isFinite else { return }
        samples.append(Sample(value: value, weight: weight))
        totalWeight += weight
        while totalWeight > maxWeight, !samples.isEmpty {
            let excess = totalWeight - maxWeight
            if samples[0].weight <= excess {
                totalWeight -= samples.removeFirst().weight
            } else {
                samples[0].weight -= excess
                totalWeight -= excess
            }
        }
    }

    /// The smallest kept value at or below which `fraction` (0...1) of the weight lies; `nil`
    /// when there is no sample.
    public func percentile(_ fraction: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted { $0.value < $1.value }
        let target = min(1, max(0, fraction)) * totalWeight
        var sum = 0.0
        for sample in sorted {
            sum += sample.weight
            if sum >= target { return sample.value }
        }
        return sorted[sorted.count - 1].value
    }
}
