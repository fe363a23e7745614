import Foundation

extension ChatTimeline {
    /// What one operation changed, as the index sets `UITableView.performBatchUpdates` and
    /// `NSTableView` take: delete `removed` (indices in the old list) and reload `reloaded`
    /// (indices in the old list, rows whose content changed in place), then insert `inserted`
    /// (indices in the new list). A row that moved is removed and inserted.
    public struct Change: Sendable, Hashable {
        /// Rows gone, as indices into the list before the change.
        public var removed: IndexSet
        /// Rows added, as indices into the list after the change.
        public var inserted: IndexSet
        /// Rows still there whose content changed, as indices into the list before the change.
        public var reloaded: IndexSet

        /// A change of the given sets (all empty by default).
        public init(removed: IndexSet = [], inserted: IndexSet = [], reloaded: IndexSet = []) {
            self.removed = removed
            self.inserted = inserted
            self.reloaded = reloaded
        }

        /// Whether nothing changed.
        public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && reloaded.isEmpty }
    }

    /// The change that turns `old` into `new`, rows matched by ``Item/rowID``.
    ///
    /// Rows present in both keep their place when they are in the longest run that kept its
    /// relative order (found in O(n log n)); the others count as moved (removed + inserted).
    static func difference(from old: [Item], to new: [Item]) -> Change {
        var newIndex: [String: Int] = [:]
        newIndex.reserveCapacity(new.count)
        for (index, item) in new.enumerated() { newIndex[item.rowID] = index }
        // Old rows that survive, with their new positions, in old order.
        var survivors: [(old: Int, new: Int)] = []
        for (index, item) in old.enumerated() {
            if let position = newIndex[item.rowID] { survivors.append((index, position)) }
        }
        let stay = longestIncreasingRun(survivors.map(\.new))
        var change = Change()
        var keptNew = IndexSet()
        var keptOld = IndexSet()
        for (rank, pair) in survivors.enumerated() where stay.contains(rank) {
            keptOld.insert(pair.old)
            keptNew.insert(pair.new)
            if old[pair.old] != new[pair.new] { change.reloaded.insert(pair.old) }
        }
        change.removed = IndexSet(integersIn: 0..<old.count).subtracting(keptOld)
        change.inserted = IndexSet(integersIn: 0..<new.count).subtracting(keptNew)
        return change
    }

    /// The positions (into `values`) of one longest strictly increasing subsequence.
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result = Set<Int>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.insert(cursor)
            cursor = previous[cursor]
        }
        return result
    }
}
