import DouyinModels
import Foundation

extension GroupChat {
    /// A minimal message decoded once: DouyinModels gives `GroupChat` no public memberwise
    /// initializer, so own messages start from this and set their fields.
    private static let template: GroupChat = {
        let json = Data(#"{"id":"","msg_type":"text","msg_content":"","create_time":0}"#.utf8)
        // The literal above is the minimal valid message; decoding it cannot fail.
        return try! JSONDecoder().decode(GroupChat.self, from: json)
    }()

    /// A text message built on this side (an own message before the server answered, or a
    /// test's message).
    public static func text(id: String, content: String, at createTime: Date, visitor: Visitor? = nil, type: MessageType = .text) -> GroupChat {
        var chat = template
        chat.id = id
        chat.msgContent = content
        chat.createTime = createTime
        chat.visitor = visitor
        chat.msgType = type
        return chat
    }
}
