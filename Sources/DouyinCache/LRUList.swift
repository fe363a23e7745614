/// The storage behind ``MemoryCache``: a hash map into an intrusive doubly-linked list kept in
/// one array (no node objects), so lookup, insert, touch and evict are all O(1).
///
/// Not thread-safe: ``MemoryCache`` holds it behind its lock. `@usableFromInline` so the
/// cache's generic methods can be specialized in the caller's module: unspecialized, each call
/// paid for generic metadata lookups that cost more than the cache work itself.
@usableFromInline
struct LRUList<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var cost: Int
        @usableFromInline var stored: Double
        @usableFromInline var newer: Int
        @usableFromInline var older: Int

        @inlinable
        init(key: Key, value: Value, cost: Int, stored: Double, newer: Int, older: Int) {
            (self.key, self.value, self.cost, self.stored, self.newer, self.older) = (key, value, cost, stored, newer, older)
        }
    }

    @usableFromInline var slots: [Node?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var index: [Key: Int] = [:]
    /// Most recently used slot, or -1 when empty.
    @usableFromInline var newest = -1
    /// Least recently used slot, or -1 when empty.
    @usableFromInline var oldest = -1
    @usableFromInline var totalCost = 0

    @inlinable init() {}

    @inlinable var count: Int { index.count }

    /// The node for `key`, marked most recently used.
    @inlinable mutating func touch(_ key: Key) -> Node? {
        guard let slot = index[key] else { return nil }
        unlink(slot)
        linkNewest(slot)
        return slots[slot]
    }

    /// The node for `key`, leaving the order alone.
    @inlinable func peek(_ key: Key) -> Node? {
        index[key].flatMap { slots[$0] }
    }

    /// Inserts or replaces an entry as the most recently used.
    @inlinable mutating func set(_ value: Value, for key: Key, cost: Int, stored: Double) {
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
    @inlinable @discardableResult
    mutating func remove(_ key: Key) -> Node? {
        guard let slot = index.removeValue(forKey: key), let node = slots[slot] else { return nil }
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
        totalCost -= node.cost
        return node
    }

    /// The least recently used entry, if any.
    @inlinable var oldestNode: Node? { oldest < 0 ? nil : slots[oldest] }

    @inlinable mutating func removeAll() {
        self = LRUList()
    }

    /// Entries from least to most recently used.
    @inlinable var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var slot = oldest
        while slot >= 0, let node = slots[slot] {
            keys.append(node.key)
            slot = node.newer
        }
        return keys
    }

    @inlinable mutating func unlink(_ slot: Int) {
        guard let node = slots[slot] else { return }
        if node.newer >= 0 { slots[node.newer]!.older = node.older } else { newest = node.older }
        if node.older >= 0 { slots[node.older]!.newer = node.newer } else { oldest = node.newer }
        slots[slot]!.newer = -1
        slots[slot]!.older = -1
    }

    @inlinable mutating func linkNewest(_ slot: Int) {
        slots[slot]!.older = newest
        slots[slot]!.newer = -1
        if newest >= 0 { slots[newest]!.newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

// Sendable when what it holds is: MemoryCache keeps it in a LockedBox, which is Sendable only then.
extension LRUList: Sendable where Key: Sendable, Value: Sendable {}
extension LRUList.Node: Sendable where Key: Sendable, Value: Sendable {}
