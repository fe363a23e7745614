import Foundation

/// The server's open connections and which of them wait idle, for the connection cap; and a
/// way for the accept loop to sleep until one of them ends or goes idle (room it can make).
struct ConnectionTable {
    private struct Slot {
        var task: Task<Void, Never>?
        var waitingSince: ContinuousClock.Instant?
    }

    private var slots: [Int: Slot] = [:]
    private var nextID = 0
    /// Counts the changes that can make room: a connection ended or started waiting idle.
    private(set) var version = 0
    /// The accept loop, asleep until ``version`` moves past the one it saw.
    private var watcher: (version: Int, continuation: CheckedContinuation<Void, Never>)?

    /// Connections open.
    var count: Int { slots.count }

    /// A slot for a newly accepted connection, waiting for its first request.
    mutating func reserve() -> Int {
        nextID += 1
        slots[nextID] = Slot(task: nil, waitingSince: .now)
        return nextID
    }

    /// Records the task serving `id`; `false` when the slot is already gone (evicted or ended).
    mutating func attach(_ task: Task<Void, Never>, to id: Int) -> Bool {
        guard slots[id] != nil else { return false }
        slots[id]?.task = task
        return true
    }

    /// Marks `id` as waiting for a request (`true`) or busy answering one; returns the
    /// accept loop's continuation to resume (after unlocking) when it now has an idle
    /// connection to evict.
    mutating func setWaiting(_ id: Int, _ waiting: Bool) -> CheckedContinuation<Void, Never>? {
        guard var slot = slots[id] else { return nil }
        let becameIdle = waiting && slot.waitingSince == nil
        slot.waitingSince = waiting ? (slot.waitingSince ?? .now) : nil
        slots[id] = slot
        return becameIdle ? changed() : nil
    }

    /// Forgets `id`; returns the accept loop's continuation to resume (after unlocking).
    mutating func remove(_ id: Int) -> CheckedContinuation<Void, Never>? {
        guard slots.removeValue(forKey: id) != nil else { return nil }
        return changed()
    }

    /// The task of the connection waiting longest for a request, removed from the table (so
    /// the count drops at once and it is not chosen twice) for the caller to cancel; `nil`
    /// when none waits.
    mutating func evictOldestIdle() -> Task<Void, Never>? {
        guard let (id, slot) = slots.filter({ $0.value.task != nil && $0.value.waitingSince != nil })
            .min(by: { $0.value.waitingSince! < $1.value.waitingSince! }) else { return nil }
        slots[id] = nil
        return slot.task
    }

    /// Every connection's task.
    func allTasks() -> [Task<Void, Never>] {
        slots.values.compactMap(\.task)
    }

    /// Parks `continuation` until ``version`` moves past `seen`; returns it instead (for the
    /// caller to resume at once) when it already has.
    mutating func watch(after seen: Int, _ continuation: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
        guard version == seen, watcher == nil else { return continuation }
        watcher = (seen, continuation)
        return nil
    }

    /// Takes out the parked accept loop (it was cancelled), for the caller to resume.
    mutating func unwatch() -> CheckedContinuation<Void, Never>? {
        defer { watcher = nil }
        return watcher?.continuation
    }

    private mutating func changed() -> CheckedContinuation<Void, Never>? {
        version += 1
        return unwatch()
    }
}
