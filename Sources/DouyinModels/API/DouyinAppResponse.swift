/// The envelope of Douyin's own app and web API (and TikTok's, which shares it), beside the
/// demo backend's ``APIResponse``: `{status_code, status_msg?, aweme_list? | comments? |
/// user_info?, has_more?, max_cursor? / min_cursor? / cursor?, total?, extra?}`.
///
/// One model reads every list and profile answer of that API whole (a share page's
/// `aweme_list`, a comment list's `comments`, a profile's `user_info`): a key the answer does
/// not send reads as `nil`. Paging there goes by cursor, not page number: send ``nextCursor``
/// back as the `max_cursor` (feeds) or `cursor` (comments) parameter while ``hasMore`` is true.
///
/// `status_code` 0 is success and is the one required key; ``checked()`` turns any other into a
/// ``ModelsError``. A plain `JSONDecoder()` decodes it; encoding writes the same keys back.
public struct DouyinAppResponse: Codable, Sendable, Hashable {
    /// The server's status; 0 is success.
    public var statusCode: Int
    /// Why it failed (`status_msg`); `nil` when absent (Douyin leaves it out on success).
    public var statusMessage: String?
    /// A feed's videos (`aweme_list`: a share page's posts or favorites); `nil` when absent.
    public var awemeList: [Aweme]?
    /// A comment list's comments (`comments`); `nil` when absent.
    public var comments: [Comment]?
    /// A profile (`user_info`); `nil` when absent.
    public var userInfo: User?
    /// Whether a further page exists, sent as `true`/`false` or 0/1; `nil` when absent.
    public var hasMore: Bool?
    /// A feed's cursor for the next page (`max_cursor`, milliseconds since 1970); `nil` when absent.
    public var maxCursor: Int64?
    /// A feed's cursor for newer items (`min_cursor`, milliseconds since 1970); `nil` when absent.
    public var minCursor: Int64?
    /// A comment list's cursor for the next page (`cursor`, an offset); `nil` when absent.
    public var cursor: Int64?
    /// The server's count of all items (`total`); it may disagree with the items sent. `nil`
    /// when absent; read from a number or a numeric string.
    public var total: Int?
    /// The `extra` object (`now`, `logid`…) as sent; `nil` when absent.
    public var extra: JSONValue?

    enum CodingKeys: String, CodingKey {
        case statusCode = "status_code"
        case statusMessage = "status_msg"
        case awemeList = "aweme_list"
        case comments
        case userInfo = "user_info"
        case hasMore = "has_more"
        case maxCursor = "max_cursor"
        case minCursor = "min_cursor"
        case cursor, total, extra
    }

    /// An envelope with these values, for tests and for servers written in Swift; every field
    /// but the status defaults to absent.
    public init(statusCode: Int = 0, statusMessage: String? = nil, awemeList: [Aweme]? = nil, comments: [Comment]? = nil,
                userInfo: User? = nil, hasMore: Bool? = nil, maxCursor: Int64? = nil, minCursor: Int64? = nil,
                cursor: Int64? = nil, total: Int? = nil, extra: JSONValue? = nil) {
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.awemeList = awemeList
        self.comments = comments
        self.userInfo = userInfo
        self.hasMore = hasMore
        self.maxCursor = maxCursor
        self.minCursor = minCursor
        self.cursor = cursor
        self.total = total
        self.extra = extra
    }

    /// Decodes the envelope; the cursors may be numbers or numeric strings, `has_more` a
    /// boolean or 0/1. Errors name the JSON path (`aweme_list[3].aweme_id`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        statusCode = try container.decode(Int.self, forKey: .statusCode)
        statusMessage = try container.decodeIfPresent(String.self, forKey: .statusMessage)
        awemeList = try container.decodeIfPresent([Aweme].self, forKey: .awemeList)
        comments = try container.decodeIfPresent([Comment].self, forKey: .comments)
        userInfo = try container.decodeIfPresent(User.self, forKey: .userInfo)
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .hasMore) {
            hasMore = flag
        } else if let number = try container.decodeIfPresent(Int.self, forKey: .hasMore) {
            hasMore = number != 0
        } else {
            hasMore = nil
        }
        maxCursor = try container.decodeIDIfPresent(forKey: .maxCursor).map { try Self.cursor($0, .maxCursor, container) }
        minCursor = try container.decodeIDIfPresent(forKey: .minCursor).map { try Self.cursor($0, .minCursor, container) }
        cursor = try container.decodeIDIfPresent(forKey: .cursor).map { try Self.cursor($0, .cursor, container) }
        total = try container.decodeCountIfPresent(forKey: .total)
        extra = try container.decodeIfPresent(JSONValue.self, forKey: .extra)
    }

    /// A cursor read as text (number or string) as a 64-bit integer, or a path-naming error.
    private static func cursor(_ text: String, _ key: CodingKeys, _ container: KeyedDecodingContainer<CodingKeys>) throws -> Int64 {
        guard let value = Int64(text) else {
            throw DecodingError.typeMismatch(Int64.self, DecodingError.Context(
                codingPath: container.codingPath + [key], debugDescription: "Expected a cursor as an integer but found \"\(text)\"."))
        }
        return value
    }

    /// Encodes with the API's keys; `has_more` is written as a boolean, absent fields are left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(statusCode, forKey: .statusCode)
        try container.encodeIfPresent(statusMessage, forKey: .statusMessage)
        try container.encodeIfPresent(awemeList, forKey: .awemeList)
        try container.encodeIfPresent(comments, forKey: .comments)
        try container.encodeIfPresent(userInfo, forKey: .userInfo)
        try container.encodeIfPresent(hasMore, forKey: .hasMore)
        try container.encodeIfPresent(maxCursor, forKey: .maxCursor)
        try container.encodeIfPresent(minCursor, forKey: .minCursor)
        try container.encodeIfPresent(cursor, forKey: .cursor)
        try container.encodeIfPresent(total, forKey: .total)
        try container.encodeIfPresent(extra, forKey: .extra)
    }

    /// The cursor to send for the next page: `max_cursor` for a feed, else `cursor`; `nil`
    /// when the answer sent neither.
    public var nextCursor: Int64? { maxCursor ?? cursor }

    /// The envelope itself when `status_code` is 0.
    ///
    /// - Throws: ``ModelsError/server(code:message:)`` with the status and `status_msg` ("" when
    ///   absent) otherwise.
    public func checked() throws(ModelsError) -> DouyinAppResponse {
        guard statusCode == 0 else { throw .server(code: statusCode, message: statusMessage ?? "") }
        return self
    }
}
