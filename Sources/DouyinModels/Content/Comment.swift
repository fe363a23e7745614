import Foundation

/// Who wrote a comment: `user_type` "user" or "visitor", anything else kept as sent.
public enum CommentAuthorKind: OpenEnum {
    /// A registered account; ``Comment/user`` is set.
    case user
    /// An anonymous visitor; ``Comment/visitor`` is set.
    case visitor
    /// A kind this version does not know.
    case unknown(String)

    /// The kind for an API value.
    public init(rawValue: String) {
        switch rawValue {
        case "user": self = .user
        case "visitor": self = .visitor
        default: self = .unknown(rawValue)
        }
    }

    /// The API's spelling.
    public var rawValue: String {
        switch self {
        case .user: "user"
        case .visitor: "visitor"
        case .unknown(let value): value
        }
    }
}

/// A comment under a post.
public struct Comment: Codable, Sendable, Hashable {
    /// The comment's id.
    @FlexibleID public var cid: String
    /// The post it belongs to.
    @FlexibleID public var awemeID: String
    /// The comment's text.
    public var text: String
    /// Likes.
    public var diggCount: Int
    /// When it was written.
    @UnixTime public var createTime: Date
    /// Which of ``user`` and ``visitor`` wrote it.
    public var userType: CommentAuthorKind
    /// The author when ``userType`` is `.user`.
    public var user: User?
    /// The author when ``userType`` is `.visitor`.
    public var visitor: Visitor?

    enum CodingKeys: String, CodingKey {
        case cid, text, user, visitor
        case awemeID = "aweme_id"
        case diggCount = "digg_count"
        case createTime = "create_time"
        case userType = "user_type"
    }

    /// The author's display name: the user's nickname, or a visitor's id.
    public var authorName: String? {
        switch userType {
        case .user: user?.nickname
        case .visitor: visitor.map { "visitor \($0.uid)" }
        case .unknown: user?.nickname ?? visitor.map { "visitor \($0.uid)" }
        }
    }
}

/// A group chat message's kind: `msg_type` "text", "image", "system", anything else kept.
public enum MessageType: OpenEnum {
    /// Text, possibly with `[emotion]` names.
    case text
    /// A picture; the `pic_*` fields are set.
    case image
    /// A notice from the service.
    case system
    /// A kind this version does not know.
    case unknown(String)

    /// The kind for an API value.
    public init(rawValue: String) {
        switch rawValue {
        case "text": self = .text
        case "image": self = .image
        case "system": self = .system
        default: self = .unknown(rawValue)
        }
    }

    /// The API's spelling.
    public var rawValue: String {
        switch self {
        case .text: "text"
        case .image: "image"
        case .system: "system"
        case .unknown(let value): value
        }
    }
}

/// One message of the group chat.
public struct GroupChat: Codable, Sendable, Hashable {
    /// The message's id.
    @FlexibleID public var id: String
    /// Who sent it; `null` for some service messages.
    public var visitor: Visitor?
    /// What kind of message it is.
    public var msgType: MessageType
    /// The text; for images the API sends a placeholder such as `file`.
    public var msgContent: String
    /// The image's thumbnail, for image messages.
    public var picThumbnail: PictureInfo?
    /// The image's medium size.
    public var picMedium: PictureInfo?
    /// The image's large size.
    public var picLarge: PictureInfo?
    /// The image as uploaded.
    public var picOriginal: PictureInfo?
    /// When it was sent.
    @UnixTime public var createTime: Date

    enum CodingKeys: String, CodingKey {
        case id, visitor
        case msgType = "msg_type"
        case msgContent = "msg_content"
        case picThumbnail = "pic_thumbnail"
        case picMedium = "pic_medium"
        case picLarge = "pic_large"
        case picOriginal = "pic_original"
        case createTime = "create_time"
    }
}

/// The emotion table: `dict` maps an emotion's file name to its `[text]` form, `array` holds
/// the keyboard's pages of names.
public struct EmotionTable: Codable, Sendable, Hashable {
    /// File name → text form, such as `weixiao` → `[微笑]`.
    public var dict: [String: String]
    /// The keyboard's pages, each a list of file names.
    public var array: [[String]]

    /// Builds a table.
    public init(dict: [String: String], array: [[String]]) {
        self.dict = dict
        self.array = array
    }

    /// The text form of each emotion on a page, skipping names the table does not know.
    public func texts(onPage page: Int) -> [String] {
        guard array.indices.contains(page) else { return [] }
        return array[page].compactMap { dict[$0] }
    }
}
