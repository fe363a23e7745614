/// A set of byte offsets kept as sorted, disjoint, non-adjacent half-open ranges.
///
/// Inserting merges with neighbours, so the ranges stay as few as possible; queries are
/// binary searches over the sorted bounds.
public struct ByteRangeSet: Sendable, Hashable, Codable {
    /// The ranges, sorted, with gaps between any two.
    public private(set) var ranges: [Range<Int64>]

    /// An empty set.
    public init() {
        ranges = []
    }

    /// A set holding the given ranges (any order, overlaps allowed).
    public init(_ ranges: some Sequence<Range<Int64>>) {
        self.init()
        for range in ranges { insert(range) }
    }

    /// Whether no byte is held.
    public var isEmpty: Bool { ranges.isEmpty }

    /// The number of bytes held.
    public var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Adds `range`, merging it with any ranges it overlaps or touches.
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // First range whose end reaches the new start (touching counts), last whose start is within.
        let first = firstIndex { $0.upperBound >= range.lowerBound }
        var last = first
        while last < ranges.count, ranges[last].lowerBound <= range.upperBound { last += 1 }
        if first == last {
            ranges.insert(range, at: first)
        } else {
            let merged = min(ranges[first].lowerBound, range.lowerBound)..<max(ranges[last - 1].upperBound, range.upperBound)
            ranges.replaceSubrange(first..<last, with: [merged])
        }
    }

    /// Removes every byte at or after `offset` (used when a file turns out shorter).
    public mutating func removeAll(from offset: Int64) {
        ranges = ranges.compactMap { range in
            if range.lowerBound >= offset { return nil }
            return range.lowerBound..<min(range.upperBound, offset)
        }
    }

    /// Removes every byte of `range`.
    mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        ranges = ranges.flatMap { held -> [Range<Int64>] in
            guard held.overlaps(range) else { return [held] }
            let cutStart = min(max(range.lowerBound, held.lowerBound), held.upperBound)
            let cutEnd = min(max(range.upperBound, cutStart), held.upperBound)
            return [held.lowerBound..<cutStart, cutEnd..<held.upperBound].filter { !$0.isEmpty }
        }
    }

    /// The held parts of `range`, in order.
    func held(in range: Range<Int64>) -> [Range<Int64>] {
        ranges.compactMap { held in
            let part = max(held.lowerBound, range.lowerBound)..<max(max(held.lowerBound, range.lowerBound), min(held.upperBound, range.upperBound))
            return part.isEmpty ? nil : part
        }
    }

    /// Whether every byte of `range` is held.
    public func contains(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return true }
        let index = firstIndex { $0.upperBound > range.lowerBound }
        return index < ranges.count && ranges[index].lowerBound <= range.lowerBound && ranges[index].upperBound >= range.upperBound
    }

    /// The end of the held run starting at `offset`, or `nil` if the byte at `offset` is missing.
    public func heldRunEnd(from offset: Int64) -> Int64? {
        let index = firstIndex { $0.upperBound > offset }
        guard index < ranges.count, ranges[index].lowerBound <= offset else { return nil }
        return ranges[index].upperBound
    }

    /// The parts of `range` that are not held, in order.
    public func missing(in range: Range<Int64>) -> [Range<Int64>] {
        guard !range.isEmpty else { return [] }
        var gaps: [Range<Int64>] = []
        var cursor = range.lowerBound
        var index = firstIndex { $0.upperBound > range.lowerBound }
        while cursor < range.upperBound {
            guard index < ranges.count, ranges[index].lowerBound < range.upperBound else {
                gaps.append(cursor..<range.upperBound)
                break
            }
            let held = ranges[index]
            if held.lowerBound > cursor { gaps.append(cursor..<held.lowerBound) }
            cursor = max(cursor, held.upperBound)
            index += 1
        }
        return gaps
    }

    /// The first index whose range satisfies a predicate that is false then true along the array.
    private func firstIndex(where predicate: (Range<Int64>) -> Bool) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(ranges[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
