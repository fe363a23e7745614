import Foundation

/// The texts a share sheet uses for a post. Every field is `nil` when absent.
public struct ShareInfo: Codable, Sendable, Hashable {
    /// The share page.
    public var shareURL: String?
    /// The share title.
    public var shareTitle: String?
    /// The share description.
    public var shareDesc: String?

    enum CodingKeys: String, CodingKey {
        case shareURL = "share_url"
        case shareTitle = "share_title"
        case shareDesc = "share_desc"
    }

    /// Share texts as given; each left out is `nil` (absent), so `ShareInfo()` has none set.
    public init(shareURL: String? = nil, shareTitle: String? = nil, shareDesc: String? = nil) {
        self.shareURL = shareURL
        self.shareTitle = shareTitle
        self.shareDesc = shareDesc
    }
}
