import DouyinModels
import Foundation

/// A message as the chat screen shows it: the API's `GroupChat` and how far its delivery got.
public struct ChatMessage: Sendable, Hashable {
    /// Where an own message stands; other people's messages are `.received`.
    public enum Delivery: Sendable, Hashable {
        /// Someone else's message, or an own one that came back from the server.
        case received
        /// Own message shown at once, before the server answered.
        case pending
        /// Own message the server accepted (the POST answered, or its push echo arrived).
        case sent
        /// Own message whose POST failed; ``ChatTimeline/retry(localID:at:)`` keeps its place.
        case failed
    }

    /// The message. For a pending or failed own message `id` is its local id and
    /// `create_time` the moment it was written.
    public var chat: GroupChat
    /// How far its delivery got.
    public var delivery: Delivery
    /// The id the app gave an own message when it was written; `nil` for other messages.
    public var localID: String?

    /// Builds a message.
    public init(chat: GroupChat, delivery: Delivery = .received, localID: String? = nil) {
        self.chat = chat
        self.delivery = delivery
        self.localID = localID
    }

    /// The identity a table view keeps for this row: the local id of an own message (so the row
    /// stays the same row when the server's id arrives), else the server's id.
    public var rowID: String { localID.map { "local:" + $0 } ?? "id:" + chat.id }
}
