/// The units waiting on one track, highest priority first and in arrival order within a
/// priority. Pushing, popping and dropping cost O(number of distinct priorities), which the
/// policies keep small (1 for arrival order, 2 for local-first).
struct WaitingQueue: Sendable {
    /// One waiting unit and whether the queue bound may drop it.
    private struct Entry: Sendable {
        let unit: Int
        let droppable: Bool
    }

    /// Waiting units per priority, oldest first; `heads` marks the first live element.
    private var buckets: [Int64: [Entry]] = [:]
    private var heads: [Int64: Int] = [:]
    /// The priorities that have waiting units, ascending.
    private var priorities: [Int64] = []
    private(set) var count = 0

    mutating func push(_ unit: Int, priority: Int64, droppable: Bool) {
        if buckets[priority] == nil {
            let slot = priorities.firstIndex(where: { $0 > priority }) ?? priorities.endIndex
            priorities.insert(priority, at: slot)
            heads[priority] = 0
        }
        buckets[priority, default: []].append(Entry(unit: unit, droppable: droppable))
        count += 1
    }

    /// Removes and returns the unit that should show next.
    mutating func popFirst() -> Int? {
        guard let priority = priorities.last, let head = heads[priority], let size = buckets[priority]?.count else {
            return nil
        }
        let unit = buckets[priority]![head].unit
        if head + 1 == size {
            removeBucket(priority)
        } else if head + 1 > 32 && head + 1 > size / 2 {
            // Compact once the dead prefix outweighs the live part: amortized O(1) per pop.
            buckets[priority]!.removeFirst(head + 1)
            heads[priority] = 0
        } else {
            heads[priority] = head + 1
        }
        count -= 1
        return unit
    }

    /// Removes and returns the newest droppable unit of the lowest priority, if any.
    mutating func dropLowest() -> Int? {
        for priority in priorities {
            guard let head = heads[priority], let index = buckets[priority]?[head...].lastIndex(where: \.droppable) else {
                continue
            }
            let unit = buckets[priority]!.remove(at: index).unit
            if buckets[priority]!.count == head { removeBucket(priority) }
            count -= 1
            return unit
        }
        return nil
    }

    /// Every waiting unit, in the order they would show.
    var ordered: [Int] {
        priorities.reversed().flatMap { priority in buckets[priority].map { $0[heads[priority]!...].map(\.unit) } ?? [] }
    }

    private mutating func removeBucket(_ priority: Int64) {
        buckets[priority] = nil
        heads[priority] = nil
        priorities.removeAll { $0 == priority }
    }
}
