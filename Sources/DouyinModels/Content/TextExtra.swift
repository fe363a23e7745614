import Foundation

/// A mention or hashtag inside a caption, located by UTF-16 offsets; see ``Aweme/text(of:)``.
public struct TextExtra: Codable, Sendable, Hashable {
    /// Offset of the first UTF-16 code unit in ``Aweme/desc``; 0 when absent.
    public var start: Int
    /// Offset one past the last UTF-16 code unit; 0 when absent (with `start` absent too, the
    /// extra marks nothing).
    public var end: Int
    /// 0 a mention, 1 a hashtag; `nil` when absent.
    public var type: Int?
    /// The mentioned user's id, for mentions; `nil` when absent.
    public var userID: String?
    /// The hashtag's name, for hashtags; `nil` when absent.
    public var hashtagName: String?

    enum CodingKeys: String, CodingKey {
        case start, end, type
        case userID = "user_id"
        case hashtagName = "hashtag_name"
    }

    /// Builds a text extra from UTF-16 offsets into a caption.
    public init(start: Int, end: Int, type: Int?, userID: String? = nil, hashtagName: String? = nil) {
        self.start = start
        self.end = end
        self.type = type
        self.userID = userID
        self.hashtagName = hashtagName
    }

    /// Decodes a text extra; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = try c.decodeIfPresent(Int.self, forKey: .start) ?? 0
        end = try c.decodeIfPresent(Int.self, forKey: .end) ?? 0
        type = try c.decodeIfPresent(Int.self, forKey: .type)
        userID = try c.decodeIDIfPresent(forKey: .userID)
        hashtagName = try c.decodeIfPresent(String.self, forKey: .hashtagName)
    }
}
