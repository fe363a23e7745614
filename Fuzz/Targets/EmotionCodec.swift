// DouyinChat's emotion codec (EmotionCodec.segments, inserting, deletingBackward) against a
// reference written here as a regular expression over Unicode scalars: a candidate is `[`,
// then anything but `[`, `]` and LF, then `]`, found leftmost from where the last one ended;
// it is an emotion when its text is in the table. Properties: the same segments; UTF-16 ranges
// that tile the text, each on a scalar boundary and naming the segment's own text; an edit's
// cursor on a scalar boundary of its result.
//
// Input: byte 0 picks the edit offset and the emotion key; the rest is the text (UTF-8).
import DouyinChat
import DouyinModels
import Foundation

private let codec = EmotionCodec()
/// Table text to key; two keys with the same text resolve to the smaller, as the codec says.
private let keys = Dictionary(EmotionTable.standard.dict.map { ($0.value, $0.key) }, uniquingKeysWith: min)
private let sortedKeys = EmotionTable.standard.dict.keys.sorted()
// nonisolated(unsafe): built once, only read, and libFuzzer calls the target from one thread.
nonisolated(unsafe) private let candidate = try! Regex("\\[[^\\[\\]\\n]*\\]").matchingSemantics(.unicodeScalar)

@_cdecl("LLVMFuzzerTestOneInput")
public func emotionCodecFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let input = bytes(data, count)
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    let segments = codec.segments(of: text)
    let got = segments.map { segment in
        switch segment.kind {
        case .text: "text \(segment.utf16Range) \(Array(segment.text.unicodeScalars))"
        case .emotion(let key): "emotion \(segment.utf16Range) \(key)"
        }
    }
    let expected = reference(text)
    require(got == expected, "segments \(got), reference \(expected)")
    var offset = 0
    for segment in segments {
        require(segment.utf16Range.lowerBound == offset && isScalarBoundary(text, segment.utf16Range.upperBound)
                && Array(text[segment.range].unicodeScalars) == Array(segment.text.unicodeScalars), "segment \(segment)")
        offset = segment.utf16Range.upperBound
    }
    require(offset == text.utf16.count, "segments end at \(offset) of \(text.utf16.count)")
    // Edits at an offset anywhere (inside a pair, a token, or out of bounds).
    let at = Int(input[0]) % (text.utf16.count + 3) - 1
    let key = sortedKeys[Int(input[0]) % sortedKeys.count]
    if let inserted = codec.inserting(emotion: key, into: text, atUTF16Offset: at) {
        require(isScalarBoundary(inserted.text, inserted.cursor) && inserted.text.utf16.count == text.utf16.count + (codec.text(forKey: key)?.utf16.count ?? 0),
                "insert at \(at): cursor \(inserted.cursor) in \(Array(inserted.text.utf16))")
    }
    let deleted = codec.deletingBackward(in: text, atUTF16Offset: at)
    require(isScalarBoundary(deleted.text, deleted.cursor) && deleted.text.utf16.count <= text.utf16.count,
            "delete at \(at): cursor \(deleted.cursor) in \(Array(deleted.text.utf16))")
    return 0
}

/// Whether `offset` lies in `text`'s UTF-16 and not inside a surrogate pair.
private func isScalarBoundary(_ text: String, _ offset: Int) -> Bool {
    guard (0...text.utf16.count).contains(offset) else { return false }
    let index = text.utf16.index(text.utf16.startIndex, offsetBy: offset)
    return index.samePosition(in: text.unicodeScalars) != nil
}

private func reference(_ text: String) -> [String] {
    var result: [String] = []
    var pending: [Unicode.Scalar] = []
    var pendingStart = 0
    var position = text.startIndex
    func flush(upTo end: Int) {
        if !pending.isEmpty { result.append("text \(pendingStart..<end) \(pending)") }
        pending = []
        pendingStart = end
    }
    func utf16Offset(_ index: String.Index) -> Int { text.utf16.distance(from: text.utf16.startIndex, to: index) }
    while let match = try? candidate.firstMatch(in: text[position...]) {
        let token = String(text[match.range])
        pending += text.unicodeScalars[position..<match.range.lowerBound]
        if let key = keys[token], Array(token.unicodeScalars) == Array((EmotionTable.standard.dict[key] ?? "").unicodeScalars) {
            flush(upTo: utf16Offset(match.range.lowerBound))
            result.append("emotion \(utf16Offset(match.range.lowerBound)..<utf16Offset(match.range.upperBound)) \(key)")
            pendingStart = utf16Offset(match.range.upperBound)
        } else {
            pending += text.unicodeScalars[match.range]
        }
        position = match.range.upperBound
    }
    pending += text.unicodeScalars[position...]
    flush(upTo: text.utf16.count)
    return result
}
