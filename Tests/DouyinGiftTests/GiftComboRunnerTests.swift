import DouyinGift
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

    @Test func concurrentSendersFromManyThreadsConserveCounts() async {
        let runner = GiftComboRunner(configuration: GiftConfiguration(tracks: 2, comboWindow: .milliseconds(20)))
        let stream = runner.events()
        let senders = 8, sendsEach = 200
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for index in 0..<sendsEach {
                runner.send(GiftSend(user: "u\(sender)", gift: "g\(index % 3)", count: 1 + index % 4))
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
        let runner = GiftComboRunner(configuration: GiftConfiguration(tracks: 1, comboWindow: .milliseconds(30))) {
            collected.append($0)
        }
        let stream = runner.events()
        runner.send(GiftSend(user: "a", gift: "rose"))
        runner.send(GiftSend(user: "b", gift: "car", count: 2))
        let events = await collect(stream, until: 3)
        let shown = collected.operations
        #expect(shown.map(\.key.user) == ["a", "b"])
        #expect(shown.map(\.unit) == events.filter { $0.kind == .show }.map(\.unit))
        // The runner finishes an operation before it delivers the hide event.
        #expect(shown.allSatisfy { $0.isFinished && !$0.isExecuting })
        #expect(runner.operation(forUnit: try #require(shown.first).unit) == nil)
    }
}

/// Operations handed out by the runner's `onShow`, from its delivery queue.
final class Collected: @unchecked Sendable {
    // @unchecked Sendable: `list` is only touched under `lock`.
    private let lock = NSLock()
    private var list: [GiftDisplayOperation] = []
    func append(_ operation: GiftDisplayOperation) { lock.withLock { list.append(operation) } }
    var operations: [GiftDisplayOperation] { lock.withLock { list } }
}
