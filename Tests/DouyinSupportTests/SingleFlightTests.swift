import DouyinSupport
import Foundation
import Testing

/// The one single-flight primitive: waiters subscribe, each may leave alone, the last one
/// leaving stops the work, and the result (or the error) reaches everyone.
@Suite("SingleFlight")
struct SingleFlightTests {
    /// Counts how often an abandonment handler ran.
    final class Calls: Sendable {
        private let count = LockedBox(0)
        func record() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test func waitersGetTheResultAndLaterCallersGetItAtOnce() async throws {
        let flight = SingleFlight<Int>()
        let first = try #require(flight.subscribe()), second = try #require(flight.subscribe())
        async let a = first.value()
        async let b = second.value()
        #expect(flight.finish(.success(7)))
        #expect(try await (a, b) == (7, 7))
        #expect(try await flight.value() == 7)
        #expect(!flight.finish(.success(8)))  // a second finish changes nothing
        #expect(try await flight.value() == 7)
        #expect(flight.waiterCount == 0)
    }

    @Test func aCancelledWaiterEndsOnlyItsOwnWait() async throws {
        let flight = SingleFlight<Int>()
        let stops = Calls()
        flight.onAbandoned { stops.record() }
        let leaving = try #require(flight.subscribe()), staying = try #require(flight.subscribe())
        let leaver = Task { try await leaving.value() }
        let stayer = Task { try await staying.value() }
        leaver.cancel()
        await #expect(throws: CancellationError.self) { _ = try await leaver.value }
        // The other waiter still wants the result: the work was not told to stop.
        #expect(stops.value == 0 && !flight.isAbandoned && flight.waiterCount == 1)
        flight.finish(.success(3))
        #expect(try await stayer.value == 3)
        #expect(stops.value == 0)
    }

    @Test func theLastWaiterLeavingStopsTheWorkOnceAndRefusesNewWaiters() async throws {
        let flight = SingleFlight<Int>()
        let stops = Calls()
        flight.onAbandoned { stops.record() }
        let tasks = try (0..<3).map { _ in
            let subscription = try #require(flight.subscribe())
            return Task { try await subscription.value() }
        }
        for task in tasks {
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
        }
        #expect(stops.value == 1 && flight.isAbandoned)
        #expect(flight.subscribe() == nil)
        await #expect(throws: CancellationError.self) { _ = try await flight.value() }
        #expect(!flight.finish(.success(1)))  // the stopped work's late answer counts for nothing
        // A handler given after the abandonment runs at once (the work started late).
        flight.onAbandoned { stops.record() }
        #expect(stops.value == 2)
    }

    @Test func aWaiterCancelledBeforeItWaitsLeavesAndAbandons() async throws {
        let flight = SingleFlight<Int>()
        let stops = Calls()
        flight.onAbandoned { stops.record() }
        let subscription = try #require(flight.subscribe())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await subscription.value()
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(stops.value == 1 && flight.waiterCount == 0)
    }

    @Test func aFailureReachesEveryWaiterAndLaterCallers() async throws {
        struct Failure: Error, Equatable {}
        let flight = SingleFlight<Int>()
        let waiters = try (0..<4).map { _ in
            let subscription = try #require(flight.subscribe())
            return Task { try await subscription.value() }
        }
        flight.finish(.failure(Failure()))
        for waiter in waiters {
            await #expect(throws: Failure.self) { _ = try await waiter.value }
        }
        await #expect(throws: Failure.self) { _ = try await flight.value() }
    }

    @Test func aFlightThatKeepsRunningIsNeverAbandoned() async throws {
        let flight = SingleFlight<Int>(keepsRunningWithoutWaiters: true)
        let stops = Calls()
        flight.onAbandoned { stops.record() }
        let only = try #require(flight.subscribe())
        let task = Task { try await only.value() }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(!flight.isAbandoned && stops.value == 0)
        // Every caller left; the work goes on and a later caller gets its result.
        let later = Task { try await flight.value() }
        flight.finish(.success(5))
        #expect(try await later.value == 5)
    }

    @Test func manyWaitersCancelledAtRandomPointsAllEnd() async throws {
        // Waiters cancelled before, while and after they wait, racing the finish: each ends
        // with the value or CancellationError, none hangs, none is resumed twice (a checked
        // continuation would trap).
        for round in 0..<50 {
            let flight = SingleFlight<Int>()
            let tasks = try (0..<8).map { _ in
                let subscription = try #require(flight.subscribe())
                return Task { try await subscription.value() }
            }
            for (index, task) in tasks.enumerated() where index % 2 == round % 2 { task.cancel() }
            flight.finish(.success(round))
            for task in tasks {
                do {
                    #expect(try await task.value == round)
                } catch {
                    #expect(error is CancellationError)
                }
            }
        }
    }
}
