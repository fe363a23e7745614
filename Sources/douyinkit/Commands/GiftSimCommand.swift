import DouyinKit
import Foundation

/// `douyinkit gift-sim <script> [--tracks N] [--combo-window MS] [--max-combo N]`.
enum GiftSimCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "gift-sim", summary: "run a live-room gift script through the combo engine", usage: usage, run: run)

    static let usage = "usage: douyinkit gift-sim <script> [--tracks N] [--combo-window MS] [--max-combo N]"

    static func run(_ arguments: [String]) throws {
        var options = try Options(arguments, usage: usage)
        guard let path = options.positional.first else { throw options.missing("<script>") }
        guard options.positional.count == 1 else { throw ToolError.usage("one script, not \(options.positional.count)\n\(usage)") }
        // The engine's own ranges, checked here too so the message names the option.
        let configuration = GiftComboEngine.Configuration(
            tracks: try options.integer("--tracks", default: 2, in: 1...GiftComboEngine.Configuration.maximumTracks),
            comboWindow: .milliseconds(try options.integer("--combo-window", default: 3000, in: 0...(1 << 53))),
            maxCombo: try options.integer("--max-combo", default: 99, in: 1...GiftSend.maximumCount)
        )
        try options.finish()
        let text = try InputFile.text(path)
        let script: GiftScript
        do {
            script = try GiftScript(parsing: text)
        } catch {
            // A script line's reason quotes the line's own fields.
            throw ToolError.failed(TerminalText.escaped("\(path): \(error)"))
        }
        let events: [GiftEvent]
        do {
            events = try script.run(configuration)
        } catch {
            throw ToolError.failed(TerminalText.escaped("\(path): \(error)"))
        }
        // Keys are the script's user and gift names: escaped, so an ESC or a C1 in a name
        // reaches no terminal (whitespace already split them, so no line break is inside).
        let lines = events.filter { $0.kind != .firstDisplay }.map { TerminalText.escaped($0.description) }
        print(lines.joined(separator: "\n"))
    }
}
