import Foundation

/// Text that came from the network or a file, made safe to print as part of one output line.
///
/// Whatever a server, a chat message or a table holds, printing it must not start a new line
/// (a forged `source=fallback` or an extra message line) nor reach the terminal as a control
/// sequence (ESC, BEL, the C1 CSI). Every line the tool prints with such text goes through
/// `escaped(_:)`; JSON the tool prints goes through `escapedJSON(_:)`.
///
/// Only what can forge a line or drive a terminal is changed: text no terminal acts on (a TAB
/// included) is printed as it came, so a message reads as it was sent.
package enum TerminalText {
    /// `text` on one line: a newline as `\n`, a carriage return as `\r`, every other control
    /// character (C0 but TAB, DEL, C1) and the Unicode line and paragraph separators as
    /// `\u{HEX}`, and a backslash as `\\`, so every backslash printed starts an escape and the
    /// line reads back to the text; everything else, TAB included, unchanged.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            // A TAB neither ends a line nor starts a terminal sequence.
            case "\t": result.unicodeScalars.append(scalar)
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `json` (UTF-8 JSON as `JSONEncoder` writes it) with DEL, the C1 controls and U+2028/2029
    /// written as `\uXXXX` escapes: the same JSON value, but no byte a terminal acts on.
    ///
    /// `JSONEncoder` escapes C0 controls itself but passes DEL, C1 (`U+009B` is a CSI on
    /// terminals that read 8-bit controls) and the separators raw. Outside strings JSON holds
    /// only ASCII punctuation, digits and letters, so every byte matched here is inside a string,
    /// where `\uXXXX` means the same character.
    package static func escapedJSON(_ json: Data) -> Data {
        var result = Data()
        result.reserveCapacity(json.count)
        var index = json.startIndex
        while index < json.endIndex {
            let byte = json[index]
            let next = json.index(after: index)
            if byte == 0x7F {
                result += Data("\\u007f".utf8)
                index = next
            } else if byte == 0xC2, next < json.endIndex, (0x80...0x9F).contains(json[next]) {
                result += Data(String(format: "\\u%04x", Int(json[next])).utf8)
                index = json.index(after: next)
            } else if byte == 0xE2, json.distance(from: index, to: json.endIndex) >= 3,
                      json[next] == 0x80, json[json.index(after: next)] == 0xA8 || json[json.index(after: next)] == 0xA9 {
                result += Data((json[json.index(after: next)] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index = json.index(index, offsetBy: 3)
            } else {
                result.append(byte)
                index = next
            }
        }
        return result
    }
}
