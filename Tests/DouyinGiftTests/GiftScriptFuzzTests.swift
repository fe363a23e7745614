import DouyinGift
import Testing

/// The gift script reader's defects found writing its libFuzzer target
/// (Fuzz/Targets/GiftScript.swift), whose reference reads the script's bytes.
@Suite("Gift scripts, fuzzed")
struct GiftScriptFuzzTests {
    /// A script saved with CRLF line ends was one line to the reader ("\r\n" is one Character,
    /// equal to neither "\n" nor "\r"), so its second line's fields joined the first's and the
    /// script was refused at line 1.
    @Test func aCRLFScriptReadsLineByLine() throws {
        let script = try GiftScript(parsing: "0 ann rose\r\n5 bob car 2 10\r\n")
        #expect(script.lines.map(\.send.key.user) == ["ann", "bob"])
        #expect(script.lines.last?.time == .milliseconds(5) && script.lines.last?.send.value == 10)
    }

    /// `#` with a combining mark after it was no comment (one Character "#\u{301}").
    @Test func aHashBeforeACombiningMarkStartsAComment() throws {
        #expect(try GiftScript(parsing: "#\u{301} note\n0 a g\n").lines.count == 1)
    }

    /// Numbers at Int64's edge and past it are refused by line, never trapped on.
    @Test func numbersAtInt64sEdgeNameTheirLine() {
        for (text, line) in [("0 a g\n9223372036854775807 a g", 2), ("0 a g 1 -9223372036854775808", 1),
                             ("0 a g 9223372036854775808", 1), ("1 a g\n0 a g", 2), ("9007199254740993 a g", 1)] {
            do {
                let script = try GiftScript(parsing: text)
                Issue.record("\(text.debugDescription) accepted as \(script.lines.count) lines")
            } catch GiftError.invalidScriptLine(let refused, _) {
                #expect(refused == line, "\(text.debugDescription)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
