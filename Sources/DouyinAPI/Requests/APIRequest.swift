import DouyinModels
import Foundation

/// One call of the API that carries the type its `data` decodes to (the kean/Get idea):
/// `client.send(.user(uid: "42"))` returns a `User`, `.commentList(awemeID:)` a `[Comment]`.
///
/// The static factories cover every known endpoint; ``init(endpoint:parameters:files:decoding:)``
/// builds any other request, to any ``Endpoint``: one of Douyin's own app API, for instance,
/// whose answers are not in the demo's envelope and decode whole:
///
/// ```swift
/// let feed = APIRequest<DouyinAppResponse>(endpoint: Endpoint(path: "aweme/v1/web/aweme/post/"),
///                                          parameters: [("sec_user_id", id), ("max_cursor", "0")], decoding: .whole)
/// let awemes = try await client.value(feed).checked().awemeList ?? []
/// ```
public struct APIRequest<Response: Decodable & Sendable>: Sendable {
    /// The endpoint it goes to.
    public var endpoint: Endpoint
    /// Parameters with the API's names, in order; sent in the query (GET, DELETE), in a form
    /// body (POST) or as multipart fields (POST with files).
    public var parameters: [(name: String, value: String)]
    /// File parts; non-empty makes a POST multipart.
    public var files: [FilePart]
    /// How the answer's body is read: the demo's envelope (the default) or whole.
    public var decoding: ResponseDecoding = .envelope
    /// What `data: null` (or absent) with `code` 0 means: `nil` makes it an error
    /// (``APIError/missingData(endpoint:)``); the delete calls accept it as ``NoContent``.
    let valueForNull: (@Sendable () -> Response)?

    /// A request to `endpoint` with parameters and file parts as given, its body read as
    /// `decoding` says (the demo's envelope, whose `data` must be present, by default).
    public init(endpoint: Endpoint, parameters: [(name: String, value: String)] = [], files: [FilePart] = [], decoding: ResponseDecoding = .envelope) {
        self.init(endpoint: endpoint, parameters: parameters, files: files, valueForNull: nil)
        self.decoding = decoding
    }

    init(endpoint: Endpoint, parameters: [(name: String, value: String)], files: [FilePart] = [], valueForNull: (@Sendable () -> Response)?) {
        self.endpoint = endpoint
        self.parameters = parameters
        self.files = files
        self.valueForNull = valueForNull
    }

    /// The value of a parameter, by name (the first when repeated); `nil` when absent.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The page this request asks for (`page`), 0 when absent or not a number.
    public var page: Int { parameter("page").flatMap(Int.init) ?? 0 }
}

/// How a request's answer body is read.
public enum ResponseDecoding: Sendable, Hashable {
    /// The demo backend's envelope `{code, message, data, total_count?, has_more?}`: `code` must
    /// be 0 (else ``APIError/server(endpoint:code:message:)``) and `data` decodes as the response.
    case envelope
    /// The whole body decodes as the response (Douyin's own `DouyinAppResponse` from DouyinModels,
    /// or any JSON): no envelope is checked, so a status inside it is the caller's to check;
    /// ``APIResult/hasMore`` is false and ``APIResult/reportedTotalCount`` `nil`.
    case whole
}

/// The `data` of calls that answer none (`comment/delete`, `groupchat/delete`).
public struct NoContent: Codable, Sendable, Hashable {
    /// Nothing.
    public init() {}
}

/// A file sent as one part of a multipart body.
public struct FilePart: Sendable, Hashable {
    /// The form field name; the API reads `file`.
    public var name: String
    /// The file name sent in `Content-Disposition`; quotes and line breaks are dropped.
    public var filename: String
    /// The bytes.
    public var data: Data
    /// The part's `Content-Type`; by default sniffed from the bytes (JPEG, PNG, GIF, WebP, HEIC,
    /// else `application/octet-stream`).
    public var mediaType: String

    /// A part named `name` (`file` by default) with a media type sniffed from `data` unless given.
    public init(name: String = "file", filename: String? = nil, data: Data, mediaType: String? = nil) {
        let type = mediaType ?? ImageType.sniff(data).mediaType
        self.name = name
        self.filename = filename ?? "image.\(ImageType.sniff(data).fileExtension)"
        self.data = data
        self.mediaType = type
    }
}

extension APIRequest where Response == Visitor {
    /// `visitor/create`: registers the device whose `udid` (the md5 of a device id) is given.
    /// ``APIClient/visitor(deviceID:)`` calls it once and keeps the result.
    public static func visitorCreate(udid: String) -> Self {
        Self(endpoint: .visitorCreate, parameters: [("udid", udid)])
    }
}

extension APIRequest where Response == User {
    /// `user`: the profile of `uid`.
    public static func user(uid: String) -> Self {
        Self(endpoint: .user, parameters: [("uid", uid)])
    }
}

extension APIRequest where Response == [Aweme] {
    /// `aweme/post`: page `page` (from 0) of the posts of `uid`, `size` a page (21 by default).
    public static func awemePost(uid: String, page: Int = 0, size: Int = 21) -> Self {
        Self(endpoint: .awemePost, parameters: [("uid", uid), ("page", String(page)), ("size", String(size))])
    }

    /// `aweme/favorite`: page `page` (from 0) of the posts `uid` liked, `size` a page (21 by default).
    public static func awemeFavorite(uid: String, page: Int = 0, size: Int = 21) -> Self {
        Self(endpoint: .awemeFavorite, parameters: [("uid", uid), ("page", String(page)), ("size", String(size))])
    }
}

extension APIRequest where Response == [Comment] {
    /// `comment/list`: page `page` (from 0) of the comments under `awemeID`, `size` a page (20 by default).
    public static func commentList(awemeID: String, page: Int = 0, size: Int = 20) -> Self {
        Self(endpoint: .commentList, parameters: [("aweme_id", awemeID), ("page", String(page)), ("size", String(size))])
    }
}

extension APIRequest where Response == Comment {
    /// `comment/post`: writes `text` (any characters; sent form-encoded) under `awemeID` as the visitor `udid`.
    public static func commentPost(awemeID: String, udid: String, text: String) -> Self {
        Self(endpoint: .commentPost, parameters: [("aweme_id", awemeID), ("udid", udid), ("text", text)])
    }
}

extension APIRequest where Response == NoContent {
    /// `comment/delete`: removes comment `cid`, written by the visitor `udid`.
    public static func commentDelete(cid: String, udid: String) -> Self {
        Self(endpoint: .commentDelete, parameters: [("cid", cid), ("udid", udid)], valueForNull: { NoContent() })
    }

    /// `groupchat/delete`: removes chat message `id`, sent by the visitor `udid`.
    public static func groupChatDelete(id: String, udid: String) -> Self {
        Self(endpoint: .groupChatDelete, parameters: [("id", id), ("udid", udid)], valueForNull: { NoContent() })
    }
}

extension APIRequest where Response == [GroupChat] {
    /// `groupchat/list`: page `page` (from 0) of the group chat, `size` a page (20 by default).
    public static func groupChatList(page: Int = 0, size: Int = 20) -> Self {
        Self(endpoint: .groupChatList, parameters: [("page", String(page)), ("size", String(size))])
    }

    /// `groupchat/images`: sends several pictures at once, one part `file` each; one message a picture.
    public static func groupChatImages(udid: String, images: [FilePart]) -> Self {
        Self(endpoint: .groupChatImages, parameters: [("udid", udid)], files: images)
    }
}

extension APIRequest where Response == GroupChat {
    /// `groupchat/text`: sends `text` to the group chat as the visitor `udid`.
    public static func groupChatText(udid: String, text: String) -> Self {
        Self(endpoint: .groupChatText, parameters: [("udid", udid), ("text", text)])
    }

    /// `groupchat/image`: sends one picture (part `file`, its media type sniffed from the bytes).
    public static func groupChatImage(udid: String, image: Data, filename: String? = nil) -> Self {
        Self(endpoint: .groupChatImage, parameters: [("udid", udid)], files: [FilePart(filename: filename, data: image)])
    }
}

extension PictureInfo {
    /// ``url`` as a URL; `nil` when it is empty or does not parse.
    public var imageURL: URL? {
        url.isEmpty ? nil : URL(string: url)
    }
}
