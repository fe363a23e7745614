import DouyinSupport
import Testing

/// The curl driver's per-host limit as a pure queue: a slot per running item, the rest in
/// arrival order, a slot handed straight to the next waiter, hosts counted apart.
@Suite("HostSlots")
struct HostSlotsTests {
    final class Item {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// What `release(host:)` hands on, by name (`nil`: the slot was freed).
    static func released(_ slots: inout HostSlots<Item>, host: String) -> String? {
        slots.release(host: host)?.name
    }

    @Test func pastTheLimitItemsWaitAndTakeFreedSlotsInOrder() {
        var slots = HostSlots<Item>(limit: 2)
        var admitted: [Bool] = []
        for number in 0..<5 { admitted.append(slots.admit(Item("\(number)"), host: "a")) }
        #expect(admitted == [true, true, false, false, false])
        #expect(slots.runningCount(host: "a") == 2)
        // Each end hands its slot to the longest waiter; the count never passes the limit.
        var handedOn: [String?] = []
        for _ in 0..<3 { handedOn.append(Self.released(&slots, host: "a")) }
        #expect(handedOn == ["2", "3", "4"])
        #expect(slots.runningCount(host: "a") == 2)
        #expect(slots.waitingItems.isEmpty)
        // Nothing waits: ends free slots.
        for _ in 0..<2 { handedOn.append(Self.released(&slots, host: "a")) }
        #expect(handedOn.suffix(2) == [nil, nil])
        #expect(slots.runningCount(host: "a") == 0)
        let again = slots.admit(Item("again"), host: "a")
        #expect(again)
    }

    @Test func hostsAreCountedApart() {
        var slots = HostSlots<Item>(limit: 1)
        var admitted: [Bool] = []
        for host in ["http://a:80", "http://b:80", "https://a:443", "http://a:80"] {
            admitted.append(slots.admit(Item(host), host: host))
        }
        #expect(admitted == [true, true, true, false])
        let fromB = Self.released(&slots, host: "http://b:80")
        let fromA = Self.released(&slots, host: "http://a:80")
        #expect(fromB == nil)
        #expect(fromA == "http://a:80")
    }

    /// A waiter withdrawn (cancelled, idle too long) leaves the queue and takes no slot; one
    /// not waiting is not found.
    @Test func aWithdrawnWaiterNeverRuns() {
        var slots = HostSlots<Item>(limit: 1)
        let running = Item("running"), first = Item("first"), second = Item("second")
        var admitted: [Bool] = []
        for item in [running, first, second] { admitted.append(slots.admit(item, host: "a")) }
        #expect(admitted == [true, false, false])
        var withdrawn: [Bool] = []
        for item in [first, first, running] { withdrawn.append(slots.withdraw(item, host: "a")) }
        #expect(withdrawn == [true, false, false])
        #expect(slots.waitingItems.map(\.name) == ["second"])
        let next = Self.released(&slots, host: "a")
        #expect(next == "second")
        #expect(slots.runningCount(host: "a") == 1)
    }

    @Test func noLimitAdmitsEverything() {
        var slots = HostSlots<Item>(limit: 0)
        var admitted = 0
        for _ in 0..<100 where slots.admit(Item("x"), host: "a") { admitted += 1 }
        #expect(admitted == 100)
        #expect(slots.waitingItems.isEmpty)
        let next = Self.released(&slots, host: "a")
        #expect(next == nil)
    }
}
