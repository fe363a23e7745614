import DouyinModels
import Foundation

extension GroupChat {
    /// A text message built on this side (an own message before the server answered, or a
    /// test's message).
    public static func text(id: String, content: String, at createTime: Date, visitor: Visitor? = nil, type: MessageType = .text) -> GroupChat {
        GroupChat(id: id, msgType: type, msgContent: content, visitor: visitor, createTime: createTime)
    }
}
