import DouyinKit
import Foundation

/// `douyinkit feed session <feed.json> --trace <trace.json> --dir <dir> [--policy adaptive|fixed|none]`:
/// plays a swipe trace in real time through the package's caches and preloader (a
/// ``FeedSession`` replayed by ``SessionReplay``) and prints one line a swipe, then a summary,
/// exactly as DESIGN.md defines them.
enum FeedSessionCommand {
    static let usage = """
        usage: douyinkit feed session <feed.json> --trace <trace.json> --dir <dir> [--policy adaptive|fixed|none]
          trace.json: {"swipes": [{"item": K, "watch_ms": W}, ...]}; the video cache is <dir>/video.
          One line a swipe, as it ends:
            swipe <n> item=<k> at_ms=<unix ms> url=<gear url> start_ms=<ms> stall_ms=<ms> played_bytes=<n>
          then: summary swipes=N ready=R start_p50_ms=X start_p95_ms=Y stall_ms=Z origin_bytes=O played_bytes=P
          (ready: start_ms <= 10; percentiles nearest-rank over swipes 2..N). Policy: adaptive by default.
        """

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") {
            print(usage)
            return
        }
        var options = try Options(arguments, usage: usage)
        guard options.positional.count == 1 else { throw ToolError.usage(usage) }
        guard let tracePath = options.string("--trace") else { throw ToolError.usage("missing --trace\n\(usage)") }
        guard let directory = options.string("--dir") else { throw ToolError.usage("missing --dir\n\(usage)") }
        let policyName = options.string("--policy") ?? FeedSession.Policy.adaptive.rawValue
        guard let policy = FeedSession.Policy(rawValue: policyName) else {
            throw ToolError.usage("--policy must be adaptive, fixed or none, not \"\(policyName)\"\n\(usage)")
        }
        try options.finish()

        let feedPath = options.positional[0]
        let items: [SessionItem]
        do {
            items = try SessionItem.items(fromFeedJSON: try InputFile.read(feedPath))
        } catch let error as FeedSessionError {
            // The description quotes the file's text: escaped, like the path.
            throw ToolError.failed(TerminalText.escaped("\(feedPath): \(error.description)"))
        }
        let trace: SwipeTrace
        do {
            trace = try JSONDecoder().decode(SwipeTrace.self, from: try InputFile.read(tracePath))
        } catch let error as DecodingError {
            // The JSON path names the file's own keys: escaped, like the path.
            throw ToolError.failed(TerminalText.escaped("\(tracePath): \(error.summary)"))
        }
        if let bad = trace.swipes.firstIndex(where: { !items.indices.contains($0.item) }) {
            throw ToolError.failed("\(TerminalText.escaped(tracePath)): swipe \(bad + 1) names item \(trace.swipes[bad].item), outside the feed's \(items.count) items")
        }
        if let bad = trace.swipes.firstIndex(where: { $0.watchMilliseconds < 0 }) {
            throw ToolError.failed("\(TerminalText.escaped(tracePath)): swipe \(bad + 1) has a negative watch_ms")
        }

        var configuration = FeedSession.Configuration()
        configuration.policy = policy
        configuration.log = options.log
        let session: FeedSession
        do {
            session = try FeedSession(items: items, directory: URL(fileURLWithPath: directory).appendingPathComponent("video"),
                                      configuration: configuration)
        } catch {
            throw ToolError.failed(error.description)
        }
        let report = await SessionReplay.run(session, trace: trace) { view in
            FileHandle.standardOutput.write(Data((TerminalText.escaped(view.line) + "\n").utf8))
        }
        FileHandle.standardOutput.write(Data((report.summaryLine + "\n").utf8))
    }
}
