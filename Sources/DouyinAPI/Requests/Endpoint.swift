/// One endpoint of the demo backend's API, named by its path under the base URL.
///
/// The raw value is the path the request goes to (`comment/list` → `BASE/comment/list`); errors,
/// the fallback store and the `douyinkit api` verb all name endpoints this way.
public enum Endpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST visitor/create` (udid) → `Visitor`.
    case visitorCreate = "visitor/create"
    /// `GET user` (uid) → `User`.
    case user = "user"
    /// `GET aweme/post` (uid, page, size) → a page of `[Aweme]`.
    case awemePost = "aweme/post"
    /// `GET aweme/favorite` (uid, page, size) → a page of `[Aweme]`.
    case awemeFavorite = "aweme/favorite"
    /// `GET comment/list` (aweme_id, page, size) → a page of `[Comment]`.
    case commentList = "comment/list"
    /// `POST comment/post` (aweme_id, udid, text) → `Comment`.
    case commentPost = "comment/post"
    /// `DELETE comment/delete` (cid, udid) → no data.
    case commentDelete = "comment/delete"
    /// `GET groupchat/list` (page, size) → a page of `[GroupChat]`.
    case groupChatList = "groupchat/list"
    /// `POST groupchat/text` (udid, text) → `GroupChat`.
    case groupChatText = "groupchat/text"
    /// `POST groupchat/image`, multipart (udid + one file part `file`) → `GroupChat`.
    case groupChatImage = "groupchat/image"
    /// `POST groupchat/images`, multipart (udid + several file parts `file`) → `[GroupChat]`.
    case groupChatImages = "groupchat/images"
    /// `DELETE groupchat/delete` (id, udid) → no data.
    case groupChatDelete = "groupchat/delete"

    /// The HTTP method the backend expects.
    public var method: HTTPMethod {
        switch self {
        case .user, .awemePost, .awemeFavorite, .commentList, .groupChatList: .get
        case .visitorCreate, .commentPost, .groupChatText, .groupChatImage, .groupChatImages: .post
        case .commentDelete, .groupChatDelete: .delete
        }
    }

    /// The default page size of a paged endpoint (21 for awemes, 20 for comments and chat);
    /// `nil` for an endpoint that is not paged.
    public var defaultPageSize: Int? {
        switch self {
        case .awemePost, .awemeFavorite: 21
        case .commentList, .groupChatList: 20
        default: nil
        }
    }

    /// The path, such as `comment/list`.
    public var description: String { rawValue }
}

/// The HTTP methods the API uses.
public enum HTTPMethod: String, Sendable, Hashable {
    /// Parameters in the query; the only method retried and answered from the fallback.
    case get = "GET"
    /// Parameters in an `application/x-www-form-urlencoded` or multipart body; never retried.
    case post = "POST"
    /// Parameters in the query; never retried.
    case delete = "DELETE"
}
