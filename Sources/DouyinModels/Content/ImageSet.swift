import Foundation

/// A picture served from several mirrors: `{uri, url_list[]}` (avatars, covers, play addresses).
public struct ImageSet: Codable, Sendable, Hashable {
    /// The resource's id on the content servers; "" when absent.
    public var uri: String
    /// The mirror URLs as sent, including any that do not parse; empty when absent or `null`.
    public var urlList: [String]

    enum CodingKeys: String, CodingKey {
        case uri
        case urlList = "url_list"
    }

    /// Builds an image set.
    public init(uri: String, urlList: [String]) {
        self.uri = uri
        self.urlList = urlList
    }

    /// Decodes an image set; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uri = try c.decodeText(forKey: .uri)
        urlList = try c.decodeList([String].self, forKey: .urlList)
    }

    /// The mirror URLs that parse as URLs, in order.
    public var urls: [URL] { urlList.compactMap(URL.init(string:)) }
}

/// One stored picture of the group chat service: `{file_id, url, width, height, type}`.
public struct PictureInfo: Codable, Sendable, Hashable {
    /// The picture's id on the chat server; "" when absent.
    public var fileID: String
    /// Where to fetch it, as sent; "" when absent.
    public var url: String
    /// Width in pixels; `nil` when absent.
    public var width: Int?
    /// Height in pixels; `nil` when absent.
    public var height: Int?
    /// The MIME type, when the server said (often `null`); `nil` when absent.
    public var type: String?

    enum CodingKeys: String, CodingKey {
        case fileID = "file_id"
        case url, width, height, type
    }

    /// Builds a picture description.
    public init(fileID: String, url: String, width: Int?, height: Int?, type: String? = nil) {
        self.fileID = fileID
        self.url = url
        self.width = width
        self.height = height
        self.type = type
    }

    /// Decodes a picture description; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fileID = try c.decodeIDIfPresent(forKey: .fileID) ?? ""
        url = try c.decodeText(forKey: .url)
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
        type = try c.decodeIfPresent(String.self, forKey: .type)
    }
}
