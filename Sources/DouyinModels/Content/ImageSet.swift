import Foundation

/// A picture served from several mirrors: `{uri, url_list[]}` (avatars, covers, play addresses).
public struct ImageSet: Codable, Sendable, Hashable {
    /// The resource's id on the content servers.
    public var uri: String
    /// The mirror URLs as sent, including any that do not parse; `null` reads as empty.
    @EmptyIfNull public var urlList: [String]

    enum CodingKeys: String, CodingKey {
        case uri
        case urlList = "url_list"
    }

    /// Builds an image set.
    public init(uri: String, urlList: [String]) {
        self.uri = uri
        self.urlList = urlList
    }

    /// The mirror URLs that parse as URLs, in order.
    public var urls: [URL] { urlList.compactMap(URL.init(string:)) }
}

/// One stored picture of the group chat service: `{file_id, url, width, height, type}`.
public struct PictureInfo: Codable, Sendable, Hashable {
    /// The picture's id on the chat server.
    public var fileID: String
    /// Where to fetch it, as sent.
    public var url: String
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The MIME type, when the server said (often `null`).
    public var type: String?

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case url, width, height, type
    }

    /// Builds a picture description.
    public init(fileID: String, url: String, width: Int, height: Int, type: String? = nil) {
        self.fileID = fileID
        self.url = url
        self.width = width
        self.height = height
        self.type = type
    }
}
