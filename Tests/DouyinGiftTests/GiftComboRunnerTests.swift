import DouyinGift
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

@Suite("GiftComboRunner on the real clock")
struct GiftComboRunnerTests {
    /// Collects events until the hides and drops account for `total` gifts.
    func collect(_ stream: AsyncStream<GiftEvent>, until total: Int) async -> [GiftEvent] {
        var events: [GiftEvent] = []
        var accounted = 0
        for await event in stream {
            events.append(event)
            if event.kind == .hide || event.kind == .dropped { accounted += event.count }
            if accounted >= total { break }
        }
        return events
    }

    @Test func concurrentSendersFromManyThreadsConserveCounts() async throws {
        let runner = try GiftComboRunner(configuration: GiftComboEngine.Configuration(tracks: 2, comboWindow: .milliseconds(20)))
        let stream = runner.events()
        let senders = 8, sendsEach = 200
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for index in 0..<sendsEach {
                try! runner.send(GiftSend(user: "u\(sender)", gift: "g\(index % 3)", count: 1 + index % 4))
            }
        }
        let total = senders * (0..<sendsEach).reduce(0) { $0 + 1 + $1 % 4 }
        let events = await collect(stream, until: total)
        let accounted = events.filter { $0.kind == .hide || $0.kind == .dropped }.reduce(0) { $0 + $1.count }
        #expect(accounted == total)
        // Events arrive in engine order: time never goes backwards in the stream.
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        let shows = events.filter { $0.kind == .show }.count
        #expect(shows == events.filter { $0.kind == .hide }.count)
        #expect(shows == events.filter { $0.kind == .firstDisplay }.count)
    }

    @Test func operationExecutesWhileShownAndFinishesOnHide() async throws {
        let collected = Collected()
        let runner = try GiftComboRunner(configuration: GiftComboEngine.Configuration(tracks: 1, comboWindow: .milliseconds(30))) {
            collected.append($0)
        }
        let stream = runner.events()
        try runner.send(GiftSend(user: "a", gift: "rose"))
        try runner.send(GiftSend(user: "b", gift: "car", count: 2))
        let events = await collect(stream, until: 3)
        let shown = collected.operations
        #expect(shown.map(\.key.user) == ["a", "b"])
        #expect(shown.map(\.unit) == events.filter { $0.kind == .show }.map(\.unit))
        // The runner finishes an operation before it delivers the hide event.
        #expect(shown.allSatisfy { $0.isFinished && !$0.isExecuting })
        #expect(runner.operation(forUnit: try #require(shown.first).unit) == nil)
    }

    /// Issue 11 §3: the runner finished operations while holding its lock, so an observer of
    /// `isFinished` (KVO on Apple, which the docs invite) that called back into the runner
    /// deadlocked. Linux has no KVO `observe(_:)` for `Operation`, so the observer is the
    /// operation's change probe, which runs right after each KVO notification on its thread.
    @Test func observerCallingBackIntoTheRunnerDoesNotDeadlock() async throws {
        let runnerBox = LockedBox<GiftComboRunner?>(nil)
        let seen = LockedBox<[(key: String, unit: Int, stillListed: Bool)]>([])
        let runner = try GiftComboRunner(configuration: GiftComboEngine.Configuration(tracks: 1, comboWindow: .milliseconds(10))) { operation in
            operation.changeProbe.withLock { probe in
                probe = { operation, key in
                    guard key == "isFinished", let runner = runnerBox.withLock({ $0 }) else { return }
                    // Calls back as an observer would: a query and, for the first unit, a send.
                    let listed = runner.operation(forUnit: operation.unit) != nil
                    let first = seen.withLock { seen in
                        seen.append((key, operation.unit, listed))
                        return seen.count == 1
                    }
                    if first { try? runner.send(GiftSend(user: "b", gift: "car")) }
                }
            }
        }
        runnerBox.withLock { $0 = runner }
        let stream = runner.events()
        try runner.send(GiftSend(user: "a", gift: "rose"))
        let events = await collect(stream, until: 2)
        #expect(events.filter { $0.kind == .hide }.map(\.key.user) == ["a", "b"])
        let observed = seen.withLock { $0 }
        #expect(observed.map(\.unit) == events.filter { $0.kind == .hide }.map(\.unit))
        // By the time observers hear of the finish, the runner no longer lists the unit.
        #expect(observed.allSatisfy { !$0.stillListed })
        runnerBox.withLock { $0 = nil }
    }

    @Test func timersWaitOnTheInjectedClock() async throws {
        let clock = TestClock()
        let runner = try GiftComboRunner(configuration: GiftComboEngine.Configuration(tracks: 1, comboWindow: .seconds(3)), clock: clock)
        var events = runner.events().makeAsyncIterator()
        try runner.send(GiftSend(user: "a", gift: "rose"))
        #expect(await events.next()?.kind == .show)
        #expect(await events.next()?.kind == .firstDisplay)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(2999))
        // Just before the window closes a combo restarts it.
        try runner.send(GiftSend(user: "a", gift: "rose", count: 4))
        let combo = await events.next()
        #expect(combo?.kind == .combo && combo?.count == 5 && combo?.time == .milliseconds(2999))
        clock.advance(by: .seconds(3))
        let hide = await events.next()
        #expect(hide?.kind == .hide && hide?.count == 5 && hide?.time == .milliseconds(5999))
        #expect(runner.elapsed == .milliseconds(5999))
    }
}

/// Operations handed out by the runner's `onShow`, from its delivery queue.
final class Collected: Sendable {
    private let list = LockedBox<[GiftDisplayOperation]>([])
    func append(_ operation: GiftDisplayOperation) { list.withLock { $0.append(operation) } }
    var operations: [GiftDisplayOperation] { list.withLock { $0 } }
}
