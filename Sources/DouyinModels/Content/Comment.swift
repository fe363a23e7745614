import Foundation

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
