import DouyinCache
import DouyinTestSupport
import Foundation
import Testing

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test func countLimitEvictsTheLeastRecentlyUsed() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 0, countLimit: 3))
        cache.setValue(1, for: "a")
        cache.setValue(2, for: "b")
        cache.setValue(3, for: "c")
        #expect(cache.value(for: "a") == 1)  // a is now the most recent
        cache.setValue(4, for: "d")
        #expect(cache.value(for: "b") == nil)
        #expect(cache.keysByRecency == ["c", "a", "d"])
    }

    @Test func costLimitEvictsUntilUnder() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 10))
        cache.setValue(1, for: "a", cost: 4)
        cache.setValue(2, for: "b", cost: 4)
        cache.setValue(3, for: "c", cost: 4)
        #expect(cache.keysByRecency == ["b", "c"])
        #expect(cache.totalCost == 8)
        cache.setValue(9, for: "huge", cost: 11)
        // More than the whole budget: not kept, and the others stay (it used to push them all out).
        #expect(cache.value(for: "huge") == nil)
        #expect(cache.keysByRecency == ["b", "c"])
        #expect(cache.totalCost == 8)
        // A value too large for a key that held one: the old value is stale and goes.
        cache.setValue(10, for: "b", cost: 11)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.keysByRecency == ["c"])
    }

    @Test func replacingAnEntryUpdatesItsCost() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100))
        cache.setValue(1, for: "a", cost: 30)
        cache.setValue(2, for: "a", cost: 5)
        #expect(cache.totalCost == 5)
        #expect(cache.count == 1)
        #expect(cache.value(for: "a") == 2)
    }

    @Test func ageLimitWithAnInjectedClock() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(configuration: .init(ageLimit: .seconds(60)), clock: CacheClock { clock.now })
        cache.setValue(1, for: "a")
        clock.advance(by: 30)
        cache.setValue(2, for: "b")
        clock.advance(by: 29)
        #expect(cache.value(for: "a") == 1)
        clock.advance(by: 1)
        #expect(cache.value(for: "a") == nil)
        #expect(cache.value(for: "b") == 2)
        clock.advance(by: 30)
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    @Test func trimmingAndRemoving() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 0))
        for key in 0..<10 { cache.setValue(key, for: key, cost: 10) }
        cache.trim(toCost: 35)
        #expect(cache.keysByRecency == [7, 8, 9])
        cache.trim(toCount: 1)
        #expect(cache.keysByRecency == [9])
        #expect(cache.removeValue(for: 9) == 9)
        #expect(cache.removeValue(for: 9) == nil)
        for key in 0..<5 { cache.setValue(key, for: key) }
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test func slotsAreReusedAfterEviction() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 0, countLimit: 100))
        for key in 0..<100_000 { cache.setValue(key, for: key) }
        #expect(cache.count == 100)
        #expect(cache.keysByRecency == Array(99_900..<100_000))
    }
}
