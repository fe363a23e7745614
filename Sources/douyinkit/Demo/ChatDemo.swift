import DouyinKit
import Foundation

/// The chat part of the demo: the emotion codec on a message, a timeline with separators,
/// an own message merged with its echo, and the reconnect policy's first waits.
enum ChatDemo {
    static func run() {
        print("\n== Group chat (DouyinChat)")
        let codec = EmotionCodec()
        let text = "早上好[微笑]，今天[不是表情]也要[这也太棒了吧]😀"
        print("  \"\(text)\" →")
        for segment in codec.segments(of: text) {
            switch segment.kind {
            case .text: print("    text    UTF-16 \(segment.utf16Range) \"\(segment.text)\"")
            case .emotion(let key): print("    emotion UTF-16 \(segment.utf16Range) \(key) \(segment.text)")
            }
        }
        let keyboard = EmotionKeyboard(table: .standard)
        print("  keyboard: \(keyboard.pageCount) pages of 3×7, last page \(keyboard.page(keyboard.pageCount - 1).count) emotions + delete")

        var timeline = ChatTimeline(configuration: .init(ownUDID: "me"))
        let base = 1_600_000_000
        timeline.merge((0..<4).map { GroupChat.text(id: "m\($0)", content: "message \($0)", at: Date(timeIntervalSince1970: TimeInterval(base + $0 * 200))) })
        let pending = timeline.addPending(localID: "local-1", text: "hello [微笑]", at: Date(timeIntervalSince1970: TimeInterval(base + 1000)))
        print("  own message shown pending: inserted rows \(Array(pending.inserted))")
        var echo = GroupChat.text(id: "m9", content: "hello [微笑]", at: Date(timeIntervalSince1970: TimeInterval(base + 1001)))
        echo.visitor = nil
        let confirmed = timeline.confirm(localID: "local-1", with: echo)
        let again = timeline.receive(echo)
        print("  POST answered: reloaded rows \(Array(confirmed.reloaded)); echo pushed again: \(again.isEmpty ? "no change (shown once)" : "\(again)")")
        for item in timeline.items {
            switch item {
            case .separator(let date, _): print("    — \(Int(date.timeIntervalSince1970) - base) s —")
            case .message(let message): print("    \(message.chat.id) \(message.delivery) \"\(message.chat.msgContent)\"")
            }
        }
        let policy = ReconnectPolicy()
        print("  reconnect waits (full jitter, upper bounds): " + (0..<8).map { "\(policy.ceiling(attempt: $0).components.seconds) s" }.joined(separator: ", "))
    }
}
