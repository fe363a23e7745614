import DouyinKit
import Foundation

/// Typed decoding of the largest feed fixture against an untyped parse of the same bytes.
enum ModelsBenchmark {
    static func run() throws {
        let data = try Data(contentsOf: fixtureURL("api/feed-large.json"))
        let megabytes = Double(data.count) / 1_000_000
        let untyped = try bestTime { blackHole(try JSONSerialization.jsonObject(with: data)) }
        let typed = try bestTime { blackHole(try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data)) }
        print("models: feed-large.json \(fixed(megabytes)) MB, 150 awemes, best of 7")
        print("  JSONSerialization.jsonObject (baseline)  \(fixed(untyped * 1000)) ms  \(fixed(megabytes / untyped, 1)) MB/s")
        print("  JSONDecoder → APIResponse<[Aweme]>       \(fixed(typed * 1000)) ms  \(fixed(megabytes / typed, 1)) MB/s")
        print("  ratio typed / untyped: \(fixed(typed / untyped))× (target ≤ 2.00×)")
    }
}
