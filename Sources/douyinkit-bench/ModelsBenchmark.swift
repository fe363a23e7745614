import DouyinKit
import Foundation

/// Typed decoding of the largest feed fixture against an untyped parse of the same bytes.
enum ModelsBenchmark {
    static func run() throws {
        let data = try Data(contentsOf: fixtureURL("api/feed-large.json"))
        let megabytes = Double(data.count) / 1_000_000
        let comparison = try interleavedPairs(
            baseline: { try timed { blackHole(try JSONSerialization.jsonObject(with: data)) } },
            subject: { try timed { blackHole(try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data)) } }
        )
        let untyped = comparison.medianBaseline, typed = comparison.medianSubject
        print("models: feed-large.json \(fixed(megabytes)) MB, 150 awemes, interleaved pairs")
        print("  JSONSerialization.jsonObject (baseline)  median \(fixed(untyped * 1000)) ms  \(fixed(megabytes / untyped, 1)) MB/s")
        print("  JSONDecoder → APIResponse<[Aweme]>       median \(fixed(typed * 1000)) ms  \(fixed(megabytes / typed, 1)) MB/s")
        print("  time typed / untyped: \(comparison.summary(.time, target: 2.0))")
    }
}
