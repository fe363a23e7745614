import DouyinKit
import DouyinTestSupport
import Foundation

/// Emotion parsing of a 1 MB chat log: `EmotionCodec.segments(of:)` against the original demo's
/// method (NSRegularExpression `\[.*?\]`, a dictionary lookup per match, text between matches
/// kept as segments) on the same text, run as interleaved pairs.
enum ChatBenchmark {
    static func run() async throws {
        let codec = EmotionCodec()
        let log = chatLog(bytes: 1 << 20, table: codec.table)
        let regex = try NSRegularExpression(pattern: #"\[.*?\]"#)
        let keysByText = Dictionary(codec.table.dict.map { ($0.value, $0.key) }, uniquingKeysWith: min)

        func baseline() -> Int {
            // The demo's way: every `[...]` match looked up, text runs between them, NSRange all along.
            let string = log as NSString
            var segments: [(String, NSRange)] = []
            var last = 0
            for match in regex.matches(in: log, range: NSRange(location: 0, length: string.length)) {
                guard let key = keysByText[string.substring(with: match.range)] else { continue }
                if match.range.location > last {
                    let range = NSRange(location: last, length: match.range.location - last)
                    segments.append((string.substring(with: range), range))
                }
                segments.append((key, match.range))
                last = match.range.location + match.range.length
            }
            if last < string.length {
                let range = NSRange(location: last, length: string.length - last)
                segments.append((string.substring(with: range), range))
            }
            return segments.count
        }
        func codecParse() -> Int { codec.segments(of: log).count }

        let expected = codecParse()
        print("chat: emotion parse of a \(log.utf8.count)-byte chat log (\(expected) segments), codec vs NSRegularExpression + dictionary, interleaved pairs")
        let comparison = interleavedPairs(
            warmups: 2,
            baseline: { timed { blackHole(baseline()) } },
            subject: { timed { blackHole(codecParse()) } }
        )
        print("  regex + dictionary (baseline)  median \(fixed(comparison.medianBaseline * 1000, 1)) ms")
        print("  EmotionCodec.segments          median \(fixed(comparison.medianSubject * 1000, 1)) ms  \(fixed(Double(log.utf8.count) / comparison.medianSubject / 1e6, 0)) MB/s")
        print("  speed-up baseline / codec: \(comparison.summary(.speedup, target: 15))")
        try await ChatRealtimeBenchmark.run()
    }

    /// A deterministic chat log of about `bytes` UTF-8 bytes: Chinese and Latin text, emoji,
    /// emotions of the table, brackets that are no emotion, newlines between messages.
    static func chatLog(bytes: Int, table: EmotionTable) -> String {
        var generator = SeededRandom(seed: 0x000C_4A7B)
        let tokens = table.dict.values.sorted()
        let words = ["哈哈", "今天", "好看", "lol", "nice video ", "😀", "👍🏽", "[不是表情]", "[", "]", "真的", "这个 ", "OK "]
        var log = ""
        log.reserveCapacity(bytes + 64)
        while log.utf8.count < bytes {
            for _ in 0..<Int(generator.next() % 8 + 2) {
                if generator.next() % 3 == 0 {
                    log += tokens[Int(generator.next() % UInt64(tokens.count))]
                } else {
                    log += words[Int(generator.next() % UInt64(words.count))]
                }
            }
            log += "\n"
        }
        return log
    }
}
