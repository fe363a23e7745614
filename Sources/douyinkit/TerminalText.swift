/// Text that came from the network or a file, made safe to print as part of one output line.
///
/// Whatever a server, a chat message or a table holds, printing it must not start a new line
/// (a forged `source=fallback` or an extra message line) nor reach the terminal as a control
/// sequence (ESC, BEL). Every line the tool prints with such text goes through `escaped(_:)`.
enum TerminalText {
    /// `text` on one line: a backslash as `\\`, a newline as `\n`, a carriage return as `\r`, a
    /// tab as `\t`, and every other control character (C0, DEL, C1) and the Unicode line and
    /// paragraph separators as `\u{HEX}`; everything else unchanged.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
