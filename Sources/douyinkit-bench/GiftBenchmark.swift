import DouyinKit
import DouyinTestSupport
import Foundation

/// The gift engine's cost per send, against a baseline that only appends the sends to an array.
enum GiftBenchmark {
    static func run() {
        let senders = 1000, gifts = 20, sends = 1_000_000
        var random = SeededRandom(seed: 0x6172)
        let keys = (0..<senders).flatMap { user in (0..<gifts).map { GiftKey(user: "user\(user)", gift: "gift\($0)") } }
        // One send per millisecond of engine time: units show, combo, wait, hide as in a busy room.
        let script = (0..<sends).map { _ in GiftSend(key: keys.randomElement(using: &random)!, count: .increment(Int.random(in: 1...3, using: &random))) }

        let comparison = interleavedPairs(
            baseline: {
                timed {
                    var log: [GiftSend] = []
                    for send in script { log.append(send) }
                    blackHole(log)
                }
            },
            subject: {
                timed {
                    var engine = try! GiftComboEngine(configuration: GiftComboEngine.Configuration(tracks: 2))
                    var events: [GiftEvent] = []
                    events.reserveCapacity(16)
                    for (index, send) in script.enumerated() {
                        events.removeAll(keepingCapacity: true)
                        try! engine.send(send, at: .milliseconds(index), into: &events)
                    }
                    blackHole(engine)
                }
            }
        )
        let baseline = comparison.medianBaseline, engineTime = comparison.medianSubject
        print("gift: \(sends) sends, \(senders) senders × \(gifts) gifts, 2 tracks, 1 send/ms, interleaved pairs")
        print("  append to [GiftSend] (baseline)  median \(fixed(baseline / Double(sends) * 1e9, 1)) ns/send  \(fixed(Double(sends) / baseline / 1e6)) M sends/s")
        print("  GiftComboEngine.send             median \(fixed(engineTime / Double(sends) * 1e9, 1)) ns/send  \(fixed(Double(sends) / engineTime / 1e6)) M sends/s (target ≥ 2.00 M/s)")
        print("  time engine / baseline: \(comparison.summary(.time))")

        // Cost per send with N units waiting: all sends at one instant, so nothing hides; after
        // the first N sends create the units, every send lands on a waiting or shown unit.
        for waiting in [10, 1_000, 100_000] {
            let pool = (0..<waiting).map { GiftKey(user: "w\($0)", gift: "g") }
            let burst = 500_000
            let time = bestTime(runs: 3) {
                var engine = try! GiftComboEngine(configuration: GiftComboEngine.Configuration(tracks: 2, maxCombo: GiftSend.maximumCount))
                var events: [GiftEvent] = []
                for key in pool { try! engine.send(GiftSend(key: key, count: .increment(1)), at: .zero, into: &events) }
                events.removeAll()
                for index in 0..<burst {
                    events.removeAll(keepingCapacity: true)
                    try! engine.send(GiftSend(key: pool[index % waiting], count: .increment(1)), at: .zero, into: &events)
                }
                blackHole(engine)
            }
            // The same fill alone, so the burst's cost can be told apart from it.
            let fill = bestTime(runs: 3) {
                var engine = try! GiftComboEngine(configuration: GiftComboEngine.Configuration(tracks: 2, maxCombo: GiftSend.maximumCount))
                var events: [GiftEvent] = []
                for key in pool { try! engine.send(GiftSend(key: key, count: .increment(1)), at: .zero, into: &events) }
                blackHole(engine)
            }
            let perSend = (time - fill) / Double(burst) * 1e9
            let perNewUnit = fill / Double(waiting) * 1e9
            print("  \(waiting) waiting units: \(fixed(perSend, 1)) ns per send to a queued key, \(fixed(perNewUnit, 1)) ns per new unit")
        }
    }
}
