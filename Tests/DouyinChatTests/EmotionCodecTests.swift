import DouyinChat
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// The parsing rule written the plainest way (over Unicode scalars, rescanning freely), to
/// compare the one-pass parser against on random input.
func referenceSegments(_ text: String, table: EmotionTable) -> [(kind: String, start: Int, length: Int, value: String)] {
    let scalars = Array(text.unicodeScalars)
    let values = Dictionary(table.dict.map { ($0.value, $0.key) }, uniquingKeysWith: min)
    var result: [(kind: String, start: Int, length: Int, value: String)] = []
    var pendingText = ""
    var pendingStart = 0
    var offset16 = 0
    var index = 0
    func width(_ scalar: Unicode.Scalar) -> Int { scalar.value > 0xFFFF ? 2 : 1 }
    while index < scalars.count {
        if scalars[index] == "[" {
            var end = index + 1
            while end < scalars.count, !["[", "]", "\n"].contains(scalars[end]) { end += 1 }
            if end < scalars.count, scalars[end] == "]" {
                var candidate = ""
                candidate.unicodeScalars.append(contentsOf: scalars[index...end])
                if let key = values[candidate] {
                    if !pendingText.isEmpty { result.append(("text", pendingStart, pendingText.utf16.count, pendingText)) }
                    let length = candidate.utf16.count
                    result.append(("emotion", offset16, length, key))
                    offset16 += length
                    pendingText = ""
                    pendingStart = offset16
                    index = end + 1
                    continue
                }
            }
        }
        pendingText.unicodeScalars.append(scalars[index])
        offset16 += width(scalars[index])
        index += 1
    }
    if !pendingText.isEmpty { result.append(("text", pendingStart, pendingText.utf16.count, pendingText)) }
    return result
}

@Suite("Emotion codec")
struct EmotionCodecTests {
    let codec = EmotionCodec()

    func summary(_ text: String) -> [String] {
        codec.segments(of: text).map { segment in
            switch segment.kind {
            case .text: "text \(segment.utf16Range.lowerBound) \(segment.utf16Range.count) \(segment.text)"
            case .emotion(let key): "emotion \(segment.utf16Range.lowerBound) \(segment.utf16Range.count) \(key)"
            }
        }
    }

    @Test func splitsTextAndEmotionsWithUTF16Ranges() {
        #expect(summary("你好[微笑]世界[大笑]") == [
            "text 0 2 你好", "emotion 2 4 weixiao", "text 6 2 世界", "emotion 8 4 daxiao",
        ])
        #expect(summary("") == [])
        #expect(summary("[微笑][微笑]") == ["emotion 0 4 weixiao", "emotion 4 4 weixiao"])
    }

    @Test func bracketsThatAreNoEmotionStayTextAndMerge() {
        // The demo crashed on a bracket pair that was not an emoticon.
        #expect(summary("a[not one]b[微笑") == ["text 0 14 a[not one]b[微笑"])
        #expect(summary("]]][[[") == ["text 0 6 ]]][[["])
        #expect(summary("[[微笑]") == ["text 0 1 [", "emotion 1 4 weixiao"])
        #expect(summary("[微笑]]") == ["emotion 0 4 weixiao", "text 4 1 ]"])
        #expect(summary("[]") == ["text 0 2 []"])
    }

    @Test func aNewlineEndsACandidate() {
        #expect(summary("[微\n笑][微笑]") == ["text 0 5 [微\n笑]", "emotion 5 4 weixiao"])
        #expect(summary("x\n[微笑]\n") == ["text 0 2 x\n", "emotion 2 4 weixiao", "text 6 1 \n"])
    }

    @Test func surrogatePairsCountTwoUnitsInsideAndOutsideTokens() {
        #expect(summary("😀[😀笑脸]🇨🇳") == ["text 0 2 😀", "emotion 2 6 xiaolian", "text 8 4 🇨🇳"])
        let text = "👍🏽[微笑]"
        let segments = codec.segments(of: text)
        #expect(segments.map(\.utf16Range) == [0..<4, 4..<8])
        #expect(segments.map { String(text[$0.range]) } == ["👍🏽", "[微笑]"])
    }

    @Test func combiningMarksAreScalarsOfTheirOwn() {
        // A combining mark after `]` is text after the emotion: the segments still join back
        // to the exact input. One on `[` makes no difference to the scan either.
        let text = "[微笑]\u{301}e\u{301}[\u{301}微笑]"
        #expect(summary(text) == ["emotion 0 4 weixiao", "text 4 8 \u{301}e\u{301}[\u{301}微笑]"])
        #expect(codec.text(of: codec.segments(of: text)) == text)
    }

    @Test func stringRangesSliceTheSameTextAsTheUTF16Ranges() {
        let text = "前[微笑]🎉中\n[OK]后[这也太棒了吧]"
        for segment in codec.segments(of: text) {
            #expect(String(text[segment.range]) == segment.text)
            let utf16 = Array(text.utf16)[segment.utf16Range]
            #expect(String(decoding: utf16, as: UTF16.self) == segment.text)
        }
    }

    @Test func oneMegabyteOfOpeningBracketsIsOneTextSegment() {
        let text = String(repeating: "[", count: 1 << 20)
        let segments = codec.segments(of: text)
        #expect(segments.count == 1)
        #expect(segments.first?.utf16Range == 0..<(1 << 20))
        let closed = String(repeating: "[", count: 1 << 20) + "微笑]"
        #expect(summary(closed).last == "emotion \((1 << 20) - 1) 4 weixiao")
    }

    @Test func matchesTheReferenceOnRandomHostileText() {
        var random = SeededRandom(seed: 0xE_0710)
        let pieces = ["[", "]", "\n", "[微笑]", "[大笑]", "[OK]", "[😀笑脸]", "微", "笑", "a", "😀", "\u{301}", "[这也太棒了吧]", "\\", " ", "[nope]", "é"]
        for round in 0..<3000 {
            let text = (0..<Int.random(in: 0...24, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let got = codec.segments(of: text).map { segment -> (String, Int, Int, String) in
                switch segment.kind {
                case .text: ("text", segment.utf16Range.lowerBound, segment.utf16Range.count, segment.text)
                case .emotion(let key): ("emotion", segment.utf16Range.lowerBound, segment.utf16Range.count, key)
                }
            }
            let want = referenceSegments(text, table: codec.table)
            #expect(got.elementsEqual(want) { $0.0 == $1.kind && $0.1 == $1.start && $0.2 == $1.length && $0.3 == $1.value },
                    "round \(round) text \(text.debugDescription) \(random)")
            #expect(codec.text(of: codec.segments(of: text)) == text, "round \(round) \(random)")
        }
    }

    @Test func insertingAtAUTF16OffsetReturnsTheCursorAfterTheToken() throws {
        let inserted = try #require(codec.inserting(emotion: "weixiao", into: "你好", atUTF16Offset: 1))
        #expect(inserted.text == "你[微笑]好")
        #expect(inserted.cursor == 5)
        // Inside a surrogate pair: after the pair.
        let afterPair = try #require(codec.inserting(emotion: "ok", into: "😀x", atUTF16Offset: 1))
        #expect(afterPair.text == "😀[OK]x")
        #expect(afterPair.cursor == 6)
        // Inside a token: after the token, never splitting it.
        let afterToken = try #require(codec.inserting(emotion: "ok", into: "[微笑]", atUTF16Offset: 2))
        #expect(afterToken.text == "[微笑][OK]")
        #expect(afterToken.cursor == 8)
        // Out of bounds: clamped.
        #expect(codec.inserting(emotion: "ok", into: "ab", atUTF16Offset: 99)?.text == "ab[OK]")
        #expect(codec.inserting(emotion: "ok", into: "ab", atUTF16Offset: -3)?.cursor == 4)
        #expect(codec.inserting(emotion: "no-such-key", into: "ab", atUTF16Offset: 0) == nil)
    }

    @Test func deletingBackwardAfterAnEmotionRemovesTheWholeToken() {
        #expect(codec.deletingBackward(in: "a[微笑]b", atUTF16Offset: 5) == ("ab", 1))
        #expect(codec.deletingBackward(in: "a[微笑]b", atUTF16Offset: 6) == ("a[微笑]", 5))
        #expect(codec.deletingBackward(in: "a[微笑]b", atUTF16Offset: 3) == ("ab", 1))
        #expect(codec.deletingBackward(in: "a[不是]", atUTF16Offset: 5) == ("a[不是", 4))
        #expect(codec.deletingBackward(in: "x👍🏽", atUTF16Offset: 5) == ("x", 1))
        #expect(codec.deletingBackward(in: "e\u{301}", atUTF16Offset: 2) == ("", 0))
        #expect(codec.deletingBackward(in: "abc", atUTF16Offset: 0) == ("abc", 0))
    }

    @Test func reverseIndexResolvesTextToKey() {
        #expect(codec.key(forText: "[微笑]") == "weixiao")
        #expect(codec.key(forText: "微笑") == nil)
        #expect(codec.text(forKey: "zhenbang") == "[这也太棒了吧]")
        let duplicated = EmotionCodec(table: EmotionTable(dict: ["b": "[x]", "a": "[x]"], array: [["a", "b"]]))
        #expect(duplicated.key(forText: "[x]") == "a")
    }

    @Test func tokensMatchByExactScalarsAtEveryLengthAroundThePackedLimit() {
        // 31, 32 and 33 bytes: the last one goes through the byte-array index.
        let tokens = [31, 32, 33, 60].map { "[" + String(repeating: "a", count: $0 - 2) + "]" }
        let table = EmotionTable(dict: Dictionary(uniqueKeysWithValues: tokens.enumerated().map { ("k\($0.offset)", $0.element) }), array: [])
        let longCodec = EmotionCodec(table: table)
        for (offset, token) in tokens.enumerated() {
            #expect(longCodec.key(forText: token) == "k\(offset)")
            #expect(longCodec.segments(of: "x" + token + "y").map(\.emotionKey) == [nil, "k\(offset)", nil])
            // The same length with another last byte, or a NUL added, is another token.
            #expect(longCodec.key(forText: String(token.dropLast(2)) + "b]") == nil)
            #expect(longCodec.key(forText: String(token.dropLast()) + "\0]") == nil)
        }
        // Canonically equivalent is not the same token: "[é]" precomposed vs e + combining acute.
        let accented = EmotionCodec(table: EmotionTable(dict: ["e": "[\u{E9}]"], array: []))
        #expect(accented.key(forText: "[\u{E9}]") == "e")
        #expect(accented.key(forText: "[e\u{301}]") == nil)
        #expect(accented.segments(of: "[e\u{301}]").map(\.emotionKey) == [nil])
    }

    /// The token table is open addressing with its own hash: a table far larger than the
    /// standard one (so probes collide and wrap around) still finds every token, and only them.
    @Test func aLargeTableFindsEveryTokenAndNothingElse() {
        var random = SeededRandom(seed: 0x70_4E45)
        let alphabet = Array("ab微笑😀[]") + ["\u{301}"]
        var dict: [String: String] = [:]
        for number in 0..<3000 {
            let inner = String((0..<Int.random(in: 1...9, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
                .replacingOccurrences(of: "[", with: "x").replacingOccurrences(of: "]", with: "y")
            dict["k\(number)"] = "[\(inner)]"
        }
        let big = EmotionCodec(table: EmotionTable(dict: dict, array: []))
        let smallestKey = Dictionary(dict.map { ($0.value, $0.key) }, uniquingKeysWith: min)
        for (token, key) in smallestKey {
            #expect(big.key(forText: token) == key, "\(token.debugDescription) \(random)")
            #expect(big.key(forText: String(token.dropLast()) + "z]") == smallestKey[String(token.dropLast()) + "z]"], "\(random)")
        }
        let text = smallestKey.keys.sorted().joined(separator: "-")
        let want = referenceSegments(text, table: big.table)
        let got = big.segments(of: text)
        #expect(got.count == want.count)
        #expect(zip(got, want).allSatisfy { ($0.emotionKey ?? $0.text) == $1.value && $0.utf16Range == $1.start..<($1.start + $1.length) })
    }

    /// A text segment shares the parsed string until its text is read; moving its `range`
    /// afterwards must not move its text, and it equals (and hashes as) a segment built by
    /// hand from the same values.
    @Test func aTextSegmentKeepsItsTextWhenItsRangeIsEdited() {
        let text = "你好[微笑]世界"
        var segments = codec.segments(of: text)
        #expect(segments.map(\.text) == ["你好", "[微笑]", "世界"])
        let built = EmotionSegment(kind: .text, text: "你好", utf16Range: 0..<2, range: segments[0].range)
        #expect(segments[0] == built)
        #expect(segments[0].hashValue == built.hashValue)
        segments[0].range = text.startIndex..<text.endIndex
        #expect(segments[0].text == "你好")
        segments[2].text = "changed"
        #expect(segments[2].text == "changed")
        #expect(segments[2].range == text.index(text.endIndex, offsetBy: -2)..<text.endIndex)
    }

    @Test func theFixtureTableIsTheCompiledInTable() throws {
        let table = try JSONDecoder().decode(EmotionTable.self, from: Fixtures.data("chat/emotion.json"))
        #expect(table == EmotionTable.standard)
    }
}

@Suite("Emotion keyboard")
struct EmotionKeyboardTests {
    @Test func pagesOfTwentyWithDeleteInTheLastCell() {
        let keyboard = EmotionKeyboard(table: .standard)
        #expect(keyboard.pageCount == 3)
        #expect(keyboard.cell(page: 0, index: 0) == .emotion(key: "weixiao", text: "[微笑]"))
        #expect(keyboard.cell(page: 0, row: 2, column: 6) == .delete)
        #expect(keyboard.cell(page: 1, index: 0) == .emotion(key: "kafei", text: "[咖啡]"))
        #expect(keyboard.cell(page: 0, index: 19) == .emotion(key: "xingxing", text: "[星星]"))
    }

    @Test func theShortLastPageMapsItsCellsAndLeavesTheRestEmpty() {
        // The demo selected the wrong key on the last page and could index out of range.
        let keyboard = EmotionKeyboard(table: .standard)
        #expect(keyboard.page(2).map(\.key) == ["shandian", "xiayu", "feiwen", "baobao", "xiaolian", "zhenbang"])
        #expect(keyboard.cell(page: 2, index: 5) == .emotion(key: "zhenbang", text: "[这也太棒了吧]"))
        for index in 6..<20 { #expect(keyboard.cell(page: 2, index: index) == .empty) }
        #expect(keyboard.cell(page: 2, index: 20) == .delete)
        #expect(keyboard.cell(page: 3, index: 0) == .empty)
        #expect(keyboard.cell(page: -1, index: 0) == .empty)
        #expect(keyboard.cell(page: 0, row: 3, column: 0) == .empty)
        #expect(keyboard.cell(page: 0, index: 21) == .empty)
    }

    @Test func unevenServerPagesAreFlattenedAndUnknownNamesSkipped() {
        let table = EmotionTable(dict: Dictionary(uniqueKeysWithValues: (0..<25).map { ("k\($0)", "[t\($0)]") }),
                                 array: [(0..<3).map { "k\($0)" } + ["missing"], (3..<25).map { "k\($0)" }])
        let keyboard = EmotionKeyboard(table: table)
        #expect(keyboard.pageCount == 2)
        #expect(keyboard.cell(page: 0, index: 3) == .emotion(key: "k3", text: "[t3]"))
        #expect(keyboard.cell(page: 1, index: 4) == .emotion(key: "k24", text: "[t24]"))
        #expect(keyboard.cell(page: 1, index: 5) == .empty)
        #expect(EmotionKeyboard(table: EmotionTable(dict: [:], array: [])).pageCount == 0)
    }
}
