/// One endpoint of an API: a path under the client's base URL and the HTTP method it takes.
///
/// The demo backend's 12 endpoints are static members (`.user`, `.commentList`…), each with its
/// method and page size; any other endpoint, such as one of Douyin's own app API, is
/// ``init(path:method:defaultPageSize:)``:
///
/// ```swift
/// let feed = Endpoint(path: "aweme/v1/web/aweme/post/", method: .get)
/// ```
///
/// The ``rawValue`` is the path (`comment/list` → `BASE/comment/list`); errors, the fallback
/// store and the `douyinkit api` verb all name endpoints this way. Two endpoints are equal when
/// path, method and page size are: `Endpoint(path: "user", method: .get)` is ``user``.
public struct Endpoint: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The path under the base URL, such as `comment/list`, without a leading `/`; it may hold
    /// several segments and a trailing `/`, sent as given.
    public let path: String
    /// The HTTP method it takes.
    public let method: HTTPMethod
    /// The page size a paged endpoint uses when a request gives none (21 for awemes, 20 for
    /// comments and chat); `nil` for an endpoint that is not paged, or whose size is unknown.
    public let defaultPageSize: Int?

    /// Any endpoint: `path` under the base URL (a leading `/` is dropped, so it stays under the
    /// base), taking `method` (GET by default); `defaultPageSize` `nil` (the default) means not
    /// paged or unknown.
    public init(path: String, method: HTTPMethod = .get, defaultPageSize: Int? = nil) {
        self.path = String(path.drop { $0 == "/" })
        self.method = method
        self.defaultPageSize = defaultPageSize
    }

    /// The known endpoint (one of ``allCases``) whose path is `rawValue`; `nil` for any other
    /// path: use ``init(path:method:defaultPageSize:)`` to name one the client does not know.
    public init?(rawValue: String) {
        guard let known = Self.allCases.first(where: { $0.path == rawValue }) else { return nil }
        self = known
    }

    /// The path, such as `comment/list`.
    public var rawValue: String { path }

    /// The path, such as `comment/list`.
    public var description: String { path }

    /// The demo backend's 12 endpoints (DESIGN.md's table), in its order; other endpoints are
    /// not listed.
    public static let allCases: [Endpoint] = [
        .visitorCreate, .user, .awemePost, .awemeFavorite, .commentList, .commentPost, .commentDelete,
        .groupChatList, .groupChatText, .groupChatImage, .groupChatImages, .groupChatDelete,
    ]

    /// `POST visitor/create` (udid) → `Visitor`.
    public static let visitorCreate = Endpoint(path: "visitor/create", method: .post)
    /// `GET user` (uid) → `User`.
    public static let user = Endpoint(path: "user", method: .get)
    /// `GET aweme/post` (uid, page, size) → a page of `[Aweme]`, 21 a page.
    public static let awemePost = Endpoint(path: "aweme/post", method: .get, defaultPageSize: 21)
    /// `GET aweme/favorite` (uid, page, size) → a page of `[Aweme]`, 21 a page.
    public static let awemeFavorite = Endpoint(path: "aweme/favorite", method: .get, defaultPageSize: 21)
    /// `GET comment/list` (aweme_id, page, size) → a page of `[Comment]`, 20 a page.
    public static let commentList = Endpoint(path: "comment/list", method: .get, defaultPageSize: 20)
    /// `POST comment/post` (aweme_id, udid, text) → `Comment`.
    public static let commentPost = Endpoint(path: "comment/post", method: .post)
    /// `DELETE comment/delete` (cid, udid) → no data.
    public static let commentDelete = Endpoint(path: "comment/delete", method: .delete)
    /// `GET groupchat/list` (page, size) → a page of `[GroupChat]`, 20 a page.
    public static let groupChatList = Endpoint(path: "groupchat/list", method: .get, defaultPageSize: 20)
    /// `POST groupchat/text` (udid, text) → `GroupChat`.
    public static let groupChatText = Endpoint(path: "groupchat/text", method: .post)
    /// `POST groupchat/image`, multipart (udid + one file part `file`) → `GroupChat`.
    public static let groupChatImage = Endpoint(path: "groupchat/image", method: .post)
    /// `POST groupchat/images`, multipart (udid + several file parts `file`) → `[GroupChat]`.
    public static let groupChatImages = Endpoint(path: "groupchat/images", method: .post)
    /// `DELETE groupchat/delete` (id, udid) → no data.
    public static let groupChatDelete = Endpoint(path: "groupchat/delete", method: .delete)
}

/// The HTTP methods a request can take.
public enum HTTPMethod: String, Sendable, Hashable {
    /// Parameters in the query; the only method retried and answered from the fallback.
    case get = "GET"
    /// Parameters in an `application/x-www-form-urlencoded` or multipart body; never retried.
    case post = "POST"
    /// Parameters in a form or multipart body, as for POST; never retried.
    case put = "PUT"
    /// Parameters in a form or multipart body, as for POST; never retried.
    case patch = "PATCH"
    /// Parameters in the query; never retried.
    case delete = "DELETE"

    /// Whether the parameters go in the body (POST, PUT, PATCH) rather than the query.
    public var sendsBody: Bool { self == .post || self == .put || self == .patch }
}
