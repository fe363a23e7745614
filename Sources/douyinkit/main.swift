import DouyinKit
import Foundation

/// Every verb, in the order `--help` lists them; each file under Commands/ declares its own.
let verbs: [Verb] = [
    DemoCommand.verb,
    DecodeCommand.verb,
    CacheCommand.verb,
    WebPFramesCommand.verb,
    VideoCommand.verb,
    FeedCommand.verb,
    GiftSimCommand.verb,
    APICommand.verb,
    EmotionsCommand.verb,
    ChatCommand.verb,
    WsEchoCommand.verb,
]

/// The tool's entry: the first argument picks the verb, the rest are the verb's own.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case nil:
    ToolError.usage(Help.text(verbs)).exit()
case "--help", "-h", "help":
    print(Help.text(verbs))
    exit(0)
case "--version":
    print("douyinkit \(ToolVersion.current)")
    exit(0)
default:
    break
}
guard let verb = verbs.first(where: { $0.name == arguments[0] }) else {
    ToolError.usage("unknown verb \"\(TerminalText.escaped(arguments[0]))\"\n\(Help.text(verbs))").exit()
}
let rest = Array(arguments.dropFirst())
if Help.isRequest(rest) {
    print(verb.usage)
    exit(0)
}
do {
    try await verb.run(rest)
} catch let error as ToolError {
    error.exit()
} catch let error as CacheError {
    ToolError.failed(error.description).exit()
} catch let error as DecodingError {
    ToolError.failed(error.summary).exit()
} catch {
    ToolError.failed("\(error)").exit()
}
