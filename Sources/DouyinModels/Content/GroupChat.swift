import Foundation

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
