/// The de-duplication window of ``ChatConnection``: the last `capacity` message ids delivered,
/// in a set for lookup and a ring for age, so memory stays at `capacity` ids however long the
/// connection runs and each insert costs O(1). An id older than the window counts as new again
/// (a server that resends further back than the window would be delivered twice).
package struct RecentIDs: Sendable {
    /// How many ids are remembered; at least 1.
    package let capacity: Int
    private var members = Set<String>()
    private var ring: [String] = []
    private var next = 0

    /// An empty window of `capacity` ids (values below 1 count as 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        members.reserveCapacity(self.capacity)
        ring.reserveCapacity(self.capacity)
    }

    /// The number of ids remembered now (never above ``capacity``).
    package var count: Int { members.count }

    /// Remembers `id`; `true` when it was not in the window (deliver it), `false` for a duplicate.
    package mutating func insert(_ id: String) -> Bool {
        guard !members.contains(id) else { return false }
        if ring.count < capacity {
            ring.append(id)
        } else {
            members.remove(ring[next])
            ring[next] = id
            next = (next + 1) % capacity
        }
        members.insert(id)
        return true
    }
}
