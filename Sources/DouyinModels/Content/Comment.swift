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
///
/// Only ``cid`` is required. Douyin's and TikTok's comments carry no `user_type`: it is then
/// inferred from which of `user` and `visitor` is present (see ``userType``).
public struct Comment: Codable, Sendable, Hashable {
    /// The comment's id (a string or a number in the JSON).
    public var cid: String
    /// The post it belongs to; `nil` when absent.
    public var awemeID: String?
    /// The comment's text; "" when absent.
    public var text: String
    /// How many users liked it; `nil` when absent. Number or numeric string, written back as a number.
    public var diggCount: Int?
    /// When it was written; `nil` when absent.
    public var createTime: Date?
    /// Which of ``user`` and ``visitor`` wrote it: `user_type` as sent (unknown values kept as
    /// `.unknown`), or when the key is absent or `null`, `.user` if `user` is present, else
    /// `.visitor` if `visitor` is, else `.unknown("")`. Always written back as `user_type`.
    public var userType: CommentAuthorKind
    /// The author when ``userType`` is `.user`; `nil` when absent.
    public var user: User?
    /// The author when ``userType`` is `.visitor`; `nil` when absent.
    public var visitor: Visitor?

    enum CodingKeys: String, CodingKey {
        case cid, text, user, visitor
        case awemeID = "aweme_id"
        case diggCount = "digg_count"
        case createTime = "create_time"
        case userType = "user_type"
    }

    /// A comment with its id and any other fields; each left out is what absent means ("" for
    /// ``text``, `nil` otherwise). `userType` `nil` infers it as decoding does when `user_type`
    /// is absent: `.user` with a `user`, else `.visitor` with a `visitor`, else `.unknown("")`.
    public init(cid: String, awemeID: String? = nil, text: String = "", diggCount: Int? = nil, createTime: Date? = nil,
                userType: CommentAuthorKind? = nil, user: User? = nil, visitor: Visitor? = nil) {
        self.cid = cid
        self.awemeID = awemeID
        self.text = text
        self.diggCount = diggCount
        self.createTime = createTime
        self.user = user
        self.visitor = visitor
        self.userType = userType ?? Self.inferredKind(user: user, visitor: visitor)
    }

    /// Decodes a comment; only `cid` is required (see the type's notes).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cid = try c.decodeID(forKey: .cid)
        awemeID = try c.decodeIDIfPresent(forKey: .awemeID)
        text = try c.decodeText(forKey: .text)
        diggCount = try c.decodeCountIfPresent(forKey: .diggCount)
        createTime = try c.decodeUnixTimeIfPresent(forKey: .createTime)
        user = try c.decodeIfPresent(User.self, forKey: .user)
        visitor = try c.decodeIfPresent(Visitor.self, forKey: .visitor)
        userType = try c.decodeIfPresent(CommentAuthorKind.self, forKey: .userType)
            ?? Self.inferredKind(user: user, visitor: visitor)
    }

    /// Encodes with the API's keys, leaving out what is `nil`; `user_type` is always written.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cid, forKey: .cid)
        try c.encodeIfPresent(awemeID, forKey: .awemeID)
        try c.encode(text, forKey: .text)
        try c.encodeIfPresent(diggCount, forKey: .diggCount)
        try c.encodeUnixTimeIfPresent(createTime, forKey: .createTime)
        try c.encode(userType, forKey: .userType)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encodeIfPresent(visitor, forKey: .visitor)
    }

    /// The author kind a comment without `user_type` implies.
    static func inferredKind(user: User?, visitor: Visitor?) -> CommentAuthorKind {
        if user != nil { return .user }
        if visitor != nil { return .visitor }
        return .unknown("")
    }

    /// The author's display name: the user's nickname, or a visitor's id; `nil` when the comment
    /// names no author of its kind.
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
///
/// Only ``id`` is required; see each field for what absent means.
public struct GroupChat: Codable, Sendable, Hashable {
    /// The message's id (a string or a number in the JSON).
    public var id: String
    /// Who sent it; `nil` for some service messages and when absent.
    public var visitor: Visitor?
    /// What kind of message it is; `.unknown("")` when absent.
    public var msgType: MessageType
    /// The text; for images the API sends a placeholder such as `file`; "" when absent.
    public var msgContent: String
    /// The image's thumbnail, for image messages; `nil` when absent.
    public var picThumbnail: PictureInfo?
    /// The image's medium size; `nil` when absent.
    public var picMedium: PictureInfo?
    /// The image's large size; `nil` when absent.
    public var picLarge: PictureInfo?
    /// The image as uploaded; `nil` when absent.
    public var picOriginal: PictureInfo?
    /// When it was sent; `nil` when absent.
    public var createTime: Date?

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

    /// A message with its id and any other fields, for tests, previews and messages built on
    /// this side; each left out is `nil` (absent), the kind `.text` and the text "".
    /// `createTime` is the send time (whole seconds in the JSON).
    public init(id: String, msgType: MessageType = .text, msgContent: String = "", visitor: Visitor? = nil,
                picThumbnail: PictureInfo? = nil, picMedium: PictureInfo? = nil, picLarge: PictureInfo? = nil,
                picOriginal: PictureInfo? = nil, createTime: Date? = nil) {
        self.id = id
        self.msgType = msgType
        self.msgContent = msgContent
        self.visitor = visitor
        self.picThumbnail = picThumbnail
        self.picMedium = picMedium
        self.picLarge = picLarge
        self.picOriginal = picOriginal
        self.createTime = createTime
    }

    /// Decodes a message; only `id` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeID(forKey: .id)
        visitor = try c.decodeIfPresent(Visitor.self, forKey: .visitor)
        msgType = try c.decodeIfPresent(MessageType.self, forKey: .msgType) ?? .unknown("")
        msgContent = try c.decodeText(forKey: .msgContent)
        picThumbnail = try c.decodeIfPresent(PictureInfo.self, forKey: .picThumbnail)
        picMedium = try c.decodeIfPresent(PictureInfo.self, forKey: .picMedium)
        picLarge = try c.decodeIfPresent(PictureInfo.self, forKey: .picLarge)
        picOriginal = try c.decodeIfPresent(PictureInfo.self, forKey: .picOriginal)
        createTime = try c.decodeUnixTimeIfPresent(forKey: .createTime)
    }

    /// Encodes with the API's keys, leaving out what is `nil`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(visitor, forKey: .visitor)
        try c.encode(msgType, forKey: .msgType)
        try c.encode(msgContent, forKey: .msgContent)
        try c.encodeIfPresent(picThumbnail, forKey: .picThumbnail)
        try c.encodeIfPresent(picMedium, forKey: .picMedium)
        try c.encodeIfPresent(picLarge, forKey: .picLarge)
        try c.encodeIfPresent(picOriginal, forKey: .picOriginal)
        try c.encodeUnixTimeIfPresent(createTime, forKey: .createTime)
    }
}

/// The emotion table: `dict` maps an emotion's file name to its `[text]` form, `array` holds
/// the keyboard's pages of names.
public struct EmotionTable: Codable, Sendable, Hashable {
    /// File name → text form, such as `weixiao` → `[微笑]`; empty when absent or `null`.
    public var dict: [String: String]
    /// The keyboard's pages, each a list of file names; empty when absent or `null`.
    public var array: [[String]]

    enum CodingKeys: String, CodingKey {
        case dict, array
    }

    /// Builds a table.
    public init(dict: [String: String], array: [[String]]) {
        self.dict = dict
        self.array = array
    }

    /// Decodes a table; both parts read as empty when absent or `null`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dict = try c.decodeIfPresent([String: String].self, forKey: .dict) ?? [:]
        array = try c.decodeList([[String]].self, forKey: .array)
    }

    /// The text form of each emotion on a page, skipping names the table does not know.
    public func texts(onPage page: Int) -> [String] {
        guard array.indices.contains(page) else { return [] }
        return array[page].compactMap { dict[$0] }
    }
}
