import DouyinGift
import Testing

/// A small deterministic generator, so a failing sequence can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Counts are conserved over random sequences")
struct ConservationTests {
    @Test(arguments: 0..<4)
    func hideAndDroppedTotalsEqualEveryIncrement(batch: Int) {
        for seed in UInt64(batch * 1000)..<UInt64(batch * 1000 + 1000) {
            var random = SplitMix64(state: seed)
            let policies: [GiftPriorityPolicy] = [.arrivalOrder, .giftValue, .localUserFirst, .localUserThenValue]
            let configuration = GiftConfiguration(
                tracks: Int.random(in: 1...4, using: &random),
                comboWindow: .milliseconds(Int.random(in: 1...3000, using: &random)),
                maxCombo: Int.random(in: 1...20, using: &random),
                priority: policies.randomElement(using: &random)!,
                queueBound: Bool.random(using: &random) ? Int.random(in: 0...3, using: &random) : nil
            )
            var engine = GiftComboEngine(configuration: configuration)
            var events: [GiftEvent] = []
            var sent = 0
            var time = Duration.zero
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                time += .milliseconds(Int.random(in: 0...1500, using: &random))
                let key = GiftKey(user: "u\(Int.random(in: 0..<4, using: &random))", gift: "g\(Int.random(in: 0..<3, using: &random))")
                let isLocal = key.user == "u0"
                if Int.random(in: 0..<5, using: &random) == 0 {
                    // An absolute total counts as the increase it causes over the open unit,
                    // as it stands once the timers due by then have fired.
                    engine.advance(to: time, into: &events)
                    let shown = engine.openCount(of: key) ?? 0
                    let total = Int.random(in: 0...30, using: &random)
                    sent += max(0, total - shown)
                    engine.send(GiftSend(key: key, count: .absolute(total), isLocalUser: isLocal), at: time, into: &events)
                } else {
                    let count = Int.random(in: 1...12, using: &random)
                    sent += count
                    engine.send(GiftSend(key: key, count: .increment(count), value: Int.random(in: 0...3, using: &random), isLocalUser: isLocal), at: time, into: &events)
                }
            }
            events += engine.flush()
            let accounted = events.filter { $0.kind == .hide || $0.kind == .dropped }.reduce(0) { $0 + $1.count }
            #expect(accounted == sent, "seed \(seed)")
            #expect(events.allSatisfy { $0.count <= configuration.maxCombo }, "seed \(seed)")
            #expect(!events.contains { $0.kind == .dropped && $0.key.user == "u0" }, "seed \(seed)")
            #expect(engine.nextDeadline == nil && engine.waitingCounts.allSatisfy { $0 == 0 }, "seed \(seed)")
        }
    }
}
