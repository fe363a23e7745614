import DouyinBackendLauncher
import Foundation

/// `douyinkit-bench [suite ...]`: runs the named suites in this process; with none named,
/// every suite but the parts, each in a child process of its own.
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
/// Named suites only: parts of a suite above, for running or profiling alone.
let partsOnly: Set<String> = ["transport-cold"]
let requested = CommandLine.arguments.dropFirst()
for name in requested where suites[name] == nil {
    FileHandle.standardError.write(Data("unknown suite \(name); known: \(suites.keys.sorted().joined(separator: " "))\n".utf8))
    exit(2)
}
if requested.isEmpty {
    // The whole run: each suite in a process of its own, so none inherits another's threads.
    // In one process, FoundationNetworking's thread kept spinning a core after the suites
    // with URLSession baselines (api, chat) for the rest of the run, and every CPU-bound
    // figure after them (gift, cache, webp) came out low.
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var failed: [String] = []
    for name in suites.keys.sorted() where !partsOnly.contains(name) {
        let child = Process()
        child.executableURL = executable
        child.arguments = [name]
        try await child.runToExit()
        if child.terminationStatus != 0 || child.terminationReason != .exit { failed.append(name) }
    }
    if !failed.isEmpty {
        FileHandle.standardError.write(Data("suites that failed: \(failed.joined(separator: " "))\n".utf8))
        exit(1)
    }
} else {
    for name in requested { try await suites[name]!() }
}
