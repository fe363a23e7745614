// DouyinGift's script reader (GiftScript(parsing:)) against a reference reading the same format
// from the text's bytes. Properties: a script is accepted exactly when every line is, with
// the same sends; otherwise the error names the first line the reference refuses; numbers at
// Int64's edge (and past it) never trap.
import DouyinGift
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func giftScriptFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let expected = reference(Array(text.utf8))
    do {
        let script = try GiftScript(parsing: text)
        let got = script.lines.map { "\($0.time) \($0.send.key.user) \($0.send.key.gift) \($0.send.count) \($0.send.value)" }
        require(expected == .accepted(got), "accepted \(got), reference \(expected)")
    } catch GiftError.invalidScriptLine(let line, let reason) {
        require(expected == .refused(line: line), "refused line \(line) (\(reason)), reference \(expected)")
    } catch {
        require(false, "unexpected error \(error)")
    }
    return 0
}

private enum Outcome: Equatable {
    case accepted([String])
    case refused(line: Int)
}

/// Lines end at LF; fields are split at spaces, tabs and CRs; a blank line or one whose first
/// field starts with `#` is skipped; `<ms> <user> <gift> [count] [value]` with ms a whole
/// number 0...2^53 not below the previous line's, count 1...maximumCount, value within
/// ±maximumCount (numbers as Swift's integer parsers read them: an optional sign, digits).
private func reference(_ text: [UInt8]) -> Outcome {
    var sends: [String] = []
    var previous: Int64 = 0
    for (offset, line) in text.split(separator: 10, omittingEmptySubsequences: false).enumerated() {
        let fields = line.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 }).map { String(decoding: $0, as: UTF8.self) }
        if fields.isEmpty || fields[0].utf8.first == UInt8(ascii: "#") { continue }
        guard (3...5).contains(fields.count), let ms = Int64(fields[0]), (0...(Int64(1) << 53)).contains(ms), ms >= previous,
              let count = fields.count > 3 ? Int(fields[3]) : 1, (1...GiftSend.maximumCount).contains(count),
              let value = fields.count > 4 ? Int(fields[4]) : 0, value >= -GiftSend.maximumCount, value <= GiftSend.maximumCount
        else { return .refused(line: offset + 1) }
        previous = ms
        sends.append("\(Duration.milliseconds(ms)) \(fields[1]) \(fields[2]) \(GiftCount.increment(count)) \(value)")
    }
    return .accepted(sends)
}
