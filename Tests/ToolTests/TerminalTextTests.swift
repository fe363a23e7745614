import douyinkit
import Foundation
import Testing

/// The one escape for text from the network or a file on an output line (Sources/douyinkit/TerminalText.swift).
@Suite("TerminalText")
struct TerminalTextTests {
    @Test func lineBreaksBackslashAndTabAreWrittenAsEscapes() {
        #expect(TerminalText.escaped("a\nb\rc\r\nd\te\\f") == #"a\nb\rc\r\nd\te\\f"#)
    }

    @Test func everyOtherControlIsWrittenAsItsScalar() {
        for value in UInt32(0)...0x9F where value < 0x20 || value >= 0x7F {
            let scalar = Unicode.Scalar(value)!
            let expected: String = switch scalar {
            case "\n": #"\n"#
            case "\r": #"\r"#
            case "\t": #"\t"#
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
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" })
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
