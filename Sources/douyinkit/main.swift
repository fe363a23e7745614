import DouyinKit
import Foundation

/// The tool's entry: the first argument picks the verb, the rest are the verb's own.
let arguments = Array(CommandLine.arguments.dropFirst())
let verbs: [String: ([String]) async throws -> Void] = [
    "demo": { _ in try await Demo.run() },
    "decode": DecodeCommand.run,
    "gift-sim": GiftSimCommand.run,
    "cache": CacheCommand.run,
    "webp-frames": WebPFramesCommand.run,
    "video": VideoCommand.run,
    "feed": FeedCommand.run,
    "api": APICommand.run,
    "emotions": EmotionsCommand.run,
    "chat": ChatCommand.run,
]

guard let verb = arguments.first, let command = verbs[verb] else {
    ToolError.usage("""
    usage: douyinkit <verb> ...
      demo
      decode <user|awemes|comments|groupchats|emotions> <file>
      cache get <url> --dir <dir> [--out <file>]
      webp-frames <file> --out <dir>
      video get <url> --range <first>-<last> --dir <dir> [--out <file>]
      video serve --dir <dir> [--port P]
      video prefetch <url> --dir <dir> --seconds S [--max-bandwidth B]
      feed preload <feed.json> --index I --dir <dir> [--ahead N] [--behind M] [--bytes B]
      gift-sim <script> [--tracks N] [--combo-window MS] [--max-combo N]
      api <endpoint> [name=value ...] --base <url> [--pages N] [--fallback <dir>] [--file <path>]
      emotions parse <text> [--table <emotion.json>]
      chat listen <ws-url> [--udid U] [--count N] [--timeout S]
    """).exit()
}
do {
    try await command(Array(arguments.dropFirst()))
} catch let error as ToolError {
    error.exit()
} catch let error as CacheError {
    ToolError.failed(error.description).exit()
} catch let error as DecodingError {
    ToolError.failed(error.summary).exit()
} catch {
    ToolError.failed("\(error)").exit()
}
