import DouyinKit
import Foundation

/// `douyinkit emotions parse <text> [--table <emotion.json>]`: one line per segment,
/// `text <start> <length> <text>` or `emotion <start> <length> <key>`, in UTF-16 units; the text
/// and the key (the table's, from a file) through ``TerminalText/escaped(_:)``.
enum EmotionsCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "emotions", summary: "split text into text and emotion segments", usage: usage, run: run)

    static let usage = "usage: douyinkit emotions parse <text> [--table <emotion.json>]"

    static func run(_ arguments: [String]) throws {
        guard arguments.first == "parse" else { throw ToolError.usage(usage) }
        var text: String?
        var tablePath: String?
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "--table" {
                guard let path = rest.popFirst() else { throw ToolError.usage("--table needs a value\n\(usage)") }
                tablePath = path
            } else if text == nil {
                text = argument
            } else {
                throw ToolError.usage(usage)
            }
        }
        guard let text else { throw ToolError.usage("missing <text>\n\(usage)") }
        var table = EmotionTable.standard
        if let tablePath {
            let data = try InputFile.read(tablePath)
            do {
                table = try JSONDecoder().decode(EmotionTable.self, from: data)
            } catch let error as DecodingError {
                // The path names the table's own keys: escaped like any text from a file.
                throw ToolError.failed("\(TerminalText.escaped(tablePath)): \(TerminalText.escaped(error.summary(decoding: data)))")
            }
        }
        var output = ""
        for segment in EmotionCodec(table: table).segments(of: text) {
            let start = segment.utf16Range.lowerBound, length = segment.utf16Range.count
            switch segment.kind {
            case .text: output += "text \(start) \(length) \(TerminalText.escaped(segment.text))\n"
            case .emotion(let key): output += "emotion \(start) \(length) \(TerminalText.escaped(key))\n"
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}
