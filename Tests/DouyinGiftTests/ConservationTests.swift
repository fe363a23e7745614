import DouyinGift
import DouyinTestSupport
import Testing

@Suite("Counts are conserved over random sequences")
struct ConservationTests {
    @Test(arguments: 0..<4)
    func hideAndDroppedTotalsEqualEveryIncrement(batch: Int) throws {
        for seed in UInt64(batch * 1000)..<UInt64(batch * 1000 + 1000) {
            var random = SeededRandom(seed: seed)
            let policies: [GiftPriorityPolicy] = [.arrivalOrder, .giftValue, .localUserFirst, .localUserThenValue]
            let configuration = GiftComboEngine.Configuration(
                tracks: Int.random(in: 1...4, using: &random),
                comboWindow: .milliseconds(Int.random(in: 1...3000, using: &random)),
                maxCombo: Int.random(in: 1...20, using: &random),
                priority: policies.randomElement(using: &random)!,
                queueBound: Bool.random(using: &random) ? Int.random(in: 0...3, using: &random) : nil
            )
            var engine = try GiftComboEngine(configuration: configuration)
            var events: [GiftEvent] = []
            var sent = 0
            var largestSend = 0
            var time = Duration.zero
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                time += .milliseconds(Int.random(in: 0...1500, using: &random))
                let key = GiftKey(user: "u\(Int.random(in: 0..<4, using: &random))", gift: "g\(Int.random(in: 0..<3, using: &random))")
                let isLocal = key.user == "u0"
                // Timers due by then fire first, so the send's own effect can be told apart.
                try engine.advance(to: time, into: &events)
                let unitsBefore = (0..<configuration.tracks).reduce(0) { $0 + engine.snapshot(ofTrack: $1).count }
                var own: [GiftEvent] = []
                if Int.random(in: 0..<5, using: &random) == 0 {
                    // An absolute total counts as the increase it causes over the open unit.
                    let shown = engine.openCount(of: key) ?? 0
                    let total = Int.random(in: 0...30, using: &random)
                    sent += max(0, total - shown)
                    largestSend = max(largestSend, total - shown)
                    try engine.send(GiftSend(key: key, count: .absolute(total), isLocalUser: isLocal), at: time, into: &own)
                } else {
                    let count = Int.random(in: 1...12, using: &random)
                    sent += count
                    largestSend = max(largestSend, count)
                    try engine.send(GiftSend(key: key, count: .increment(count), value: Int.random(in: 0...3, using: &random), isLocalUser: isLocal), at: time, into: &own)
                }
                // A single send is never split: it makes at most one new unit (the units it
                // adds, plus any it pushed out of a queue, exceed those before by at most one).
                let unitsAfter = (0..<configuration.tracks).reduce(0) { $0 + engine.snapshot(ofTrack: $1).count }
                let dropped = own.filter { $0.kind == .dropped }.count
                #expect(unitsAfter + dropped - unitsBefore <= 1, "\(random)")
                #expect(own.filter { $0.kind == .show }.count <= 1, "\(random)")
                events += own
            }
            events += engine.flush()
            let accounted = events.filter { $0.kind == .hide || $0.kind == .dropped }.reduce(0) { $0 + $1.count }
            #expect(accounted == sent, "\(random)")
            // A unit passes the cap only by the one send that closed it.
            #expect(events.allSatisfy { $0.count < configuration.maxCombo + largestSend }, "\(random)")
            #expect(!events.contains { $0.kind == .dropped && $0.key.user == "u0" }, "\(random)")
            #expect(engine.nextDeadline == nil && engine.waitingCounts.allSatisfy { $0 == 0 }, "\(random)")
        }
    }
}
