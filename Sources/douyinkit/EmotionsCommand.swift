import DouyinKit
import Foundation

/// `douyinkit emotions parse <text> [--table <emotion.json>]`: one line per segment,
/// `text <start> <length> <text>` or `emotion <start> <length> <key>`, in UTF-16 units; the text
/// and the key (the table's, from a file) through ``TerminalText/escaped(_:)``.
enum EmotionsCommand {
    static let usage = "usage: douyinkit emotions parse <text> [--table <emotion.json>]"

    static func run(_ arguments: [String]) throws {
        guard arguments.first == "parse" else { throw ToolError.usage(usage) }
        var text: String?
        var tablePath: String?
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "--table" {
                guard let path = rest.popFirst() else { throw ToolError.usage(usage) }
                tablePath = path
            } else if text == nil {
                text = argument
            } else {
                throw ToolError.usage(usage)
            }
        }
        guard let text else { throw ToolError.usage(usage) }
        var table = EmotionTable.standard
        if let tablePath {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: tablePath)) } catch { throw ToolError.failed("cannot read \(TerminalText.escaped(tablePath))") }
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
