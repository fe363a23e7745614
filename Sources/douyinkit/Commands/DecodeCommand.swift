import DouyinKit
import Foundation

/// `douyinkit decode <kind> <file>`: decodes an API response and prints it re-encoded.
enum DecodeCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "decode", summary: "decode a saved API response or emotion table and print it as JSON", usage: usage, run: run)

    static let kinds = "user|awemes|comments|groupchats|emotions"
    static let usage = "usage: douyinkit decode <\(kinds)> <file>"

    static func run(_ arguments: [String]) throws {
        guard arguments.count >= 1 else { throw ToolError.usage("missing <\(kinds)>\n\(usage)") }
        guard arguments.count >= 2 else { throw ToolError.usage("missing <file>\n\(usage)") }
        guard arguments.count == 2 else { throw ToolError.usage(usage) }
        let data = try InputFile.read(arguments[1])
        let json = try reencode(kind: arguments[0], data: data)
        // The strings are the file's: DEL, C1 and U+2028/2029 leave as JSON escapes, not raw.
        FileHandle.standardOutput.write(TerminalText.escapedJSON(json) + Data("\n".utf8))
    }

    /// Decodes `data` as the response kind and encodes it again with the API's keys.
    static func reencode(kind: String, data: Data) throws -> Data {
        switch kind {
        case "user": try roundTrip(APIResponse<User>.self, data)
        case "awemes": try roundTrip(APIResponse<[Aweme]>.self, data)
        case "comments": try roundTrip(APIResponse<[Comment]>.self, data)
        case "groupchats": try roundTrip(APIResponse<[GroupChat]>.self, data)
        case "emotions": try roundTrip(EmotionTable.self, data)
        default: throw ToolError.usage("unknown kind \"\(TerminalText.escaped(kind))\": expected one of \(kinds)")
        }
    }

    private static func roundTrip<T: Codable>(_ type: T.Type, _ data: Data) throws -> Data {
        let value: T
        do {
            value = try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            // The JSON path of the first problem, or the byte offset when it is not JSON at all.
            // The path holds the file's keys and the message may quote its text.
            throw ToolError.failed(TerminalText.escaped(error.summary(decoding: data)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
