import DouyinModels
import Foundation

/// Turns chat text into text and emotion segments and back, and edits text the way a chat
/// input does (an emotion is inserted and deleted as one token).
///
/// The parsing rule (the same as `douyinkit emotions parse`): a candidate is `[`, the shortest
/// run of characters other than `[`, `]` and newline (U+000A), then `]`; it is an emotion when
/// that whole text is a value of the table, else text. Adjacent text merges into one segment.
/// A `[` that never closes, or is followed by another `[` first, is text, and the scan goes on
/// from the next `[`, so no input makes the parser look at a character twice.
///
/// Characters here are Unicode scalars: a combining mark after `]` is a text segment of its
/// own, so the segments always concatenate back to the exact input. A candidate matches a
/// table text only when their scalars are identical: a canonically equivalent spelling (`é` as
/// `e` + U+0301) is not that emotion.
public struct EmotionCodec: Sendable {
    /// The table this codec recognises.
    public let table: EmotionTable
    /// `[text]` → key, by exact bytes. Two keys with the same text resolve to the smaller key.
    private let tokens: TokenIndex

    /// A codec for `table` (the package's own `EmotionTable.standard` by default).
    public init(table: EmotionTable = .standard) {
        self.table = table
        tokens = TokenIndex(table.dict)
    }

    /// The key whose `[text]` form is `text`, such as `weixiao` for `[微笑]`; `nil` when none.
    public func key(forText text: String) -> String? { tokens.entry(for: text)?.key }

    /// The `[text]` form of the emotion `key`; `nil` when the table has no such key.
    public func text(forKey key: String) -> String? { table.dict[key] }

    /// Splits `text` into segments in one pass, without regular expressions.
    ///
    /// Text segments share `text`'s storage and copy their characters out only when their
    /// ``EmotionSegment/text`` is read (see ``EmotionSegment``).
    ///
    /// - Complexity: O(n) in the text's UTF-8 length, plus one table probe per candidate no
    ///   longer than the table's longest token.
    public func segments(of text: String) -> [EmotionSegment] {
        var contiguous = text
        contiguous.makeContiguousUTF8()
        // Read through this copy while `withUTF8` holds `contiguous` (same storage, no copy).
        let source = contiguous
        return contiguous.withUTF8 { bytes in Self.scan(bytes, of: source, tokens: tokens) }
    }

    /// The one pass of ``segments(of:)`` over `source`'s UTF-8 `bytes`. A static function with
    /// every variable its own local: captured by a nested function, each was a heap box whose
    /// every access went through the runtime's exclusivity check (6 % of the parse in a
    /// profile).
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, of source: String, tokens: TokenIndex) -> [EmotionSegment] {
        let utf8 = source.utf8
        var segments: [EmotionSegment] = []
        // Room for every segment there can be, so the array is never moved as it grows
        // (copying it at each doubling was 15 % of the parse in a profile): each emotion
        // needs a `[` and a `]` of its own, and at most one text run comes before each
        // emotion and one after the last. Capacity never written to stays untouched virtual
        // memory.
        segments.reserveCapacity(2 * min(count(of: UInt8(ascii: "["), in: bytes), count(of: UInt8(ascii: "]"), in: bytes)) + 1)
        // The pending text run starts here (byte offset and UTF-16 offset).
        var runStart = 0, runStart16 = 0
        var position = 0, position16 = 0
        let count = bytes.count
        while position < count {
            // Jump to the next `[` (memchr), then count the UTF-16 units skipped in a
            // separate loop the compiler can vectorize: most of a chat log is plain text.
            let next = firstOpeningBracket(in: bytes, from: position)
            position16 += utf16Count(UnsafeBufferPointer(rebasing: bytes[position..<next]))
            position = next
            guard position < count else { break }
            // A candidate: scan to the first `[`, `]` or newline.
            var scan = position + 1, scan16 = position16 + 1
            while scan < count {
                let next = bytes[scan]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "]") || next == UInt8(ascii: "\n") { break }
                scan16 += utf16Width(lead: next)
                scan += 1
            }
            guard scan < count, bytes[scan] == UInt8(ascii: "]") else {
                // Not closed before a `[`, a newline or the end: all of it is text, and
                // the scan resumes at the stop character (a `[` there is a new candidate).
                position = scan
                position16 = scan16
                continue
            }
            let end = scan + 1, end16 = scan16 + 1
            if let entry = tokens.entry(for: UnsafeBufferPointer(rebasing: bytes[position..<end])) {
                if position > runStart {
                    // Indices by UTF-8 offset: O(1) in a native string.
                    let range = utf8.index(utf8.startIndex, offsetBy: runStart)..<utf8.index(utf8.startIndex, offsetBy: position)
                    segments.append(EmotionSegment(kind: .text, slicing: source, utf16Range: runStart16..<position16, range: range))
                }
                let range = utf8.index(utf8.startIndex, offsetBy: position)..<utf8.index(utf8.startIndex, offsetBy: end)
                segments.append(EmotionSegment(kind: .emotion(key: entry.key), text: entry.token, utf16Range: position16..<end16, range: range))
                runStart = end
                runStart16 = end16
            }
            position = end
            position16 = end16
        }
        if count > runStart {
            let range = utf8.index(utf8.startIndex, offsetBy: runStart)..<utf8.index(utf8.startIndex, offsetBy: count)
            segments.append(EmotionSegment(kind: .text, slicing: source, utf16Range: runStart16..<position16, range: range))
        }
        return segments
    }

    /// The text the segments stand for: their texts joined (emotions as their `[text]` form).
    public func text(of segments: [EmotionSegment]) -> String {
        var text = ""
        text.reserveCapacity(segments.reduce(0) { $0 + $1.text.utf8.count })
        for segment in segments {
            if let key = segment.emotionKey, let token = table.dict[key] { text += token } else { text += segment.text }
        }
        return text
    }

    /// Inserts the emotion `key` into `text` at a UTF-16 offset, as a chat input does when a
    /// cell of the emotion keyboard is tapped.
    ///
    /// An offset inside an emotion token moves to the token's end; one inside a surrogate pair
    /// moves past the pair; one out of bounds is clamped to the text. Returns `nil` when the
    /// table has no such key.
    /// - Returns: the new text and the cursor after the inserted token, in UTF-16 units.
    public func inserting(emotion key: String, into text: String, atUTF16Offset offset: Int) -> (text: String, cursor: Int)? {
        guard let token = table.dict[key] else { return nil }
        var at = min(max(offset, 0), text.utf16.count)
        if let covering = segments(of: text).first(where: { $0.emotionKey != nil && $0.utf16Range.contains(at) && $0.utf16Range.lowerBound != at }) {
            at = covering.utf16Range.upperBound
        }
        let index = Self.scalarIndex(in: text, utf16Offset: at)
        var result = text
        result.insert(contentsOf: token, at: index)
        return (result, text.utf16.distance(from: text.utf16.startIndex, to: index) + token.utf16.count)
    }

    /// Deletes backward from a UTF-16 cursor, as the keyboard's delete key does: right after an
    /// emotion it removes the whole token, otherwise the one character (grapheme) before it.
    ///
    /// A cursor inside an emotion token deletes that token; a cursor at 0 changes nothing.
    /// - Returns: the new text and cursor, in UTF-16 units.
    public func deletingBackward(in text: String, atUTF16Offset offset: Int) -> (text: String, cursor: Int) {
        let at = min(max(offset, 0), text.utf16.count)
        guard at > 0 else { return (text, 0) }
        if let token = segments(of: text).first(where: { $0.emotionKey != nil && $0.utf16Range.lowerBound < at && at <= $0.utf16Range.upperBound }) {
            var result = text
            result.removeSubrange(token.range)
            return (result, token.utf16Range.lowerBound)
        }
        let cursor = Self.scalarIndex(in: text, utf16Offset: at)
        // The character before the cursor; a cursor inside a grapheme deletes back to its start.
        let before = text[..<cursor]
        let characterStart = before.index(before: before.endIndex)
        var result = text
        result.removeSubrange(characterStart..<cursor)
        return (result, text.utf16.distance(from: text.utf16.startIndex, to: characterStart))
    }

    /// The offset of the first `[` at or after `start`, or `bytes.count` when there is none.
    static func firstOpeningBracket(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: "[")), bytes.count - start) else { return bytes.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// How many times `byte` occurs in `bytes` (a loop the compiler vectorizes).
    static func count(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var found = 0
        for each in bytes { found &+= each == byte ? 1 : 0 }
        return found
    }

    /// The UTF-16 length of valid UTF-8 `bytes`: one unit per scalar (every byte but a
    /// continuation byte starts one), two for a four-byte scalar (lead byte ≥ 0xF0).
    static func utf16Count(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var units = 0
        for byte in bytes {
            units &+= (byte & 0xC0 != 0x80 ? 1 : 0) &+ (byte >= 0xF0 ? 1 : 0)
        }
        return units
    }

    /// How many UTF-16 units the scalar starting with this UTF-8 byte takes (0 for a
    /// continuation byte).
    @inline(__always)
    static func utf16Width(lead byte: UInt8) -> Int {
        if byte < 0x80 { return 1 }
        if byte < 0xC0 { return 0 }
        return byte >= 0xF0 ? 2 : 1
    }

    /// The index of a UTF-16 offset rounded up to a scalar boundary (past a surrogate pair's
    /// second half).
    static func scalarIndex(in text: String, utf16Offset: Int) -> String.Index {
        let index = text.utf16.index(text.utf16.startIndex, offsetBy: utf16Offset)
        return index.samePosition(in: text.unicodeScalars) == nil ? text.utf16.index(after: index) : index
    }
}
