import Foundation

/// `douyinkit-bench [suite ...]`: runs the named suites (all when none is named).
let suites: [String: () async throws -> Void] = [
    "cache": CacheBenchmark.run,
    "feed": FeedBenchmark.run,
    "gift": GiftBenchmark.run,
    "models": ModelsBenchmark.run,
    "webp": WebPBenchmark.run,
    "webp-queues": WebPBenchmark.queuesOnly,
    "video": VideoBenchmark.run,
    "api": APIBenchmark.run,
    "chat": ChatBenchmark.run,
    "session": SessionBenchmark.run,
    "proxy": ProxyBenchmark.run,
    "transport": TransportBenchmark.run,
    "transport-cold": TransportBenchmark.coldOnly,
    "proxy-idle": ProxyBenchmark.idle,
    "proxy-readers": ProxyBenchmark.readers,
]
let requested = CommandLine.arguments.dropFirst()
for name in requested.isEmpty ? suites.keys.sorted() : Array(requested) {
    guard let suite = suites[name] else {
        FileHandle.standardError.write(Data("unknown suite \(name); known: \(suites.keys.sorted().joined(separator: " "))\n".utf8))
        exit(2)
    }
    try await suite()
}
