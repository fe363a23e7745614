import douyinkit
import Foundation
import Testing

/// The one escape for text from the network or a file on an output line (Sources/douyinkit/TerminalText.swift).
@Suite("TerminalText")
struct TerminalTextTests {
    @Test func lineBreaksAndBackslashAreWrittenAsEscapes() {
        #expect(TerminalText.escaped("a\nb\rc\r\nd\\f") == #"a\nb\rc\r\nd\\f"#)
    }

    /// Issue 36 item 3: a TAB neither forges a line nor drives a terminal, so it is text kept
    /// as it came (it was printed as the two characters `\t`).
    @Test func aTabIsKeptAsItCame() {
        #expect(TerminalText.escaped("a\tb\t") == "a\tb\t")
    }

    /// The output reads back unambiguously: every escape starts with a backslash and a
    /// backslash in the text is itself escaped, so undoing the escapes gives the text back.
    @Test func escapedTextReadsBackToTheText() {
        let every = String(String.UnicodeScalarView((0...0x2100).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{2029}"]))
        for text in [every, #"\n"#, #"\u{1B}"#, "\\\n", #"a\\tb"#, "\\\u{1B}"] {
            #expect(Self.unescaped(TerminalText.escaped(text)) == text, "\(text.debugDescription)")
        }
    }

    /// A reader's inverse of the escaping rule README states (scalar by scalar: a `}` and a
    /// combining mark after it are one Character).
    static func unescaped(_ line: String) -> String {
        var result = String.UnicodeScalarView(), rest = Substring(line).unicodeScalars
        while let first = rest.popFirst() {
            guard first == "\\" else { result.append(first); continue }
            switch rest.popFirst() {
            case "\\": result.append("\\")
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "u":
                let hex = rest.dropFirst().prefix { $0 != "}" }
                result.append(Unicode.Scalar(UInt32(String(String.UnicodeScalarView(hex)), radix: 16)!)!)
                rest = rest.dropFirst(hex.count + 2)
            default: Issue.record("a backslash not starting an escape in \(line.debugDescription)")
            }
        }
        return String(result)
    }

    @Test func everyOtherControlIsWrittenAsItsScalar() {
        for value in UInt32(0)...0x9F where value < 0x20 || value >= 0x7F {
            let scalar = Unicode.Scalar(value)!
            let expected: String = switch scalar {
            case "\n": #"\n"#
            case "\r": #"\r"#
            case "\t": "\t"
            default: "\\u{\(String(value, radix: 16, uppercase: true))}"
            }
            #expect(TerminalText.escaped(String(scalar)) == expected, "U+\(String(value, radix: 16))")
        }
        #expect(TerminalText.escaped("\u{2028}\u{2029}") == #"\u{2028}\u{2029}"#)
        #expect(TerminalText.escaped("\u{1B}[2J\u{07}\u{9B}31m") == #"\u{1B}[2J\u{7}\u{9B}31m"#)
    }

    @Test func printableTextIsUnchanged() {
        let text = " ~中文 [微笑] 😀 é\u{301} \u{A0}\u{FEFF}"
        #expect(TerminalText.escaped(text) == text)
        #expect(TerminalText.escaped("") == "")
    }

    @Test func noEscapedTextHoldsAControl() {
        let every = String(String.UnicodeScalarView((0...0x2100).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{2029}"]))
        let escaped = TerminalText.escaped(every)
        #expect(!escaped.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" })
    }

    @Test func jsonKeepsItsValueAndLosesItsRawControls() throws {
        let value = ["k\u{7F}\u{9B}\u{2028}": "v\u{80}\u{9F}\u{2029}é€", "plain": "x"]
        let encoded = try JSONEncoder().encode(value)
        let escaped = TerminalText.escapedJSON(encoded)
        #expect(try JSONDecoder().decode([String: String].self, from: escaped) == value)
        let text = String(decoding: escaped, as: UTF8.self)
        #expect(text.contains(#"\u007f\u009b\u2028"#))
        #expect(text.contains(#"\u0080\u009f\u2029é€"#))
        #expect(!text.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" })
        // JSON with none of them passes byte for byte.
        let plain = Data(#"{"a":["中文",1,true,null]}"#.utf8)
        #expect(TerminalText.escapedJSON(plain) == plain)
    }
}
