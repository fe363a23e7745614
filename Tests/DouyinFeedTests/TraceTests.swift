import DouyinFeed
import Foundation
import Testing

/// Seeded swipe traces: the same seed gives the same trace, shaped like short-video retention.
@Suite struct TraceTests {
    static func trace(seed: UInt64) -> SwipeTrace {
        SwipeTrace.generated(seed: seed, swipes: 400, itemCount: 48) { _ in .seconds(8) }
    }

    @Test func aSeedReplays() {
        #expect(Self.trace(seed: 7) == Self.trace(seed: 7))
        #expect(Self.trace(seed: 7) != Self.trace(seed: 8))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func retentionShape(seed: UInt64) {
        let swipes = Self.trace(seed: seed).swipes
        let skips = swipes.filter { $0.watchMilliseconds < 1_000 }.count
        let full = swipes.filter { $0.watchMilliseconds == 8_000 }.count
        let body = swipes.count - skips - full
        let backward = zip(swipes, swipes.dropFirst()).filter { $1.item == $0.item - 1 }.count
        #expect((100...180).contains(skips), "seed \(seed): \(skips) skips")
        #expect((130...230).contains(body), "seed \(seed): \(body) body views")
        #expect((50...110).contains(full), "seed \(seed): \(full) full views")
        #expect((8...45).contains(backward), "seed \(seed): \(backward) backward")
        #expect(swipes.first?.item == 0)
        #expect(swipes.allSatisfy { (0..<48).contains($0.item) })
    }

    @Test func traceJSONUsesTheVerbsKeys() throws {
        let json = Data(#"{"swipes": [{"item": 0, "watch_ms": 1200}, {"item": 1, "watch_ms": 300}]}"#.utf8)
        let trace = try JSONDecoder().decode(SwipeTrace.self, from: json)
        #expect(trace.swipes == [.init(item: 0, watchMilliseconds: 1200), .init(item: 1, watchMilliseconds: 300)])
        let again = try JSONDecoder().decode(SwipeTrace.self, from: try JSONEncoder().encode(trace))
        #expect(again == trace)
    }
}
