/// The storage behind ``MemoryCache``: a hash map into an intrusive doubly-linked list kept in
/// one array (no node objects), so lookup, insert, touch and evict are all O(1).
///
/// Not thread-safe: ``MemoryCache`` holds it behind its lock.
struct LRUList<Key: Hashable, Value> {
    struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var stored: Double
        var newer: Int
        var older: Int
    }

    private var slots: [Node?] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    /// Most recently used slot, or -1 when empty.
    private var newest = -1
    /// Least recently used slot, or -1 when empty.
    private var oldest = -1
    private(set) var totalCost = 0

    var count: Int { index.count }

    /// The node for `key`, marked most recently used.
    mutating func touch(_ key: Key) -> Node? {
        guard let slot = index[key] else { return nil }
        unlink(slot)
        linkNewest(slot)
        return slots[slot]
    }

    /// The node for `key`, leaving the order alone.
    func peek(_ key: Key) -> Node? {
        index[key].flatMap { slots[$0] }
    }

    /// Inserts or replaces an entry as the most recently used.
    mutating func set(_ value: Value, for key: Key, cost: Int, stored: Double) {
        remove(key)
        let node = Node(key: key, value: value, cost: cost, stored: stored, newer: -1, older: -1)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = node
        } else {
            slot = slots.count
            slots.append(node)
        }
        index[key] = slot
        totalCost += cost
        linkNewest(slot)
    }

    /// Removes `key`'s entry and returns it.
    @discardableResult
    mutating func remove(_ key: Key) -> Node? {
        guard let slot = index.removeValue(forKey: key), let node = slots[slot] else { return nil }
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
        totalCost -= node.cost
        return node
    }

    /// The least recently used entry, if any.
    var oldestNode: Node? { oldest < 0 ? nil : slots[oldest] }

    mutating func removeAll() {
        self = LRUList()
    }

    /// Entries from least to most recently used.
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var slot = oldest
        while slot >= 0, let node = slots[slot] {
            keys.append(node.key)
            slot = node.newer
        }
        return keys
    }

    private mutating func unlink(_ slot: Int) {
        guard let node = slots[slot] else { return }
        if node.newer >= 0 { slots[node.newer]!.older = node.older } else { newest = node.older }
        if node.older >= 0 { slots[node.older]!.newer = node.newer } else { oldest = node.newer }
        slots[slot]!.newer = -1
        slots[slot]!.older = -1
    }

    private mutating func linkNewest(_ slot: Int) {
        slots[slot]!.older = newest
        slots[slot]!.newer = -1
        if newest >= 0 { slots[newest]!.newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
