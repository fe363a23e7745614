import Foundation

/// A post's counters. Each is `nil` when absent; each is read from a JSON number or a numeric
/// string (never through `Double`) and written back as a number.
public struct AwemeStatistics: Codable, Sendable, Hashable {
    /// The post these counters belong to (a string or a number in the JSON).
    public var awemeID: String?
    /// How many comments the post has.
    public var commentCount: Int?
    /// How many users liked the post.
    public var diggCount: Int?
    /// How many times the post was played.
    public var playCount: Int?
    /// How many times the post was shared.
    public var shareCount: Int?

    enum CodingKeys: String, CodingKey {
        case awemeID = "aweme_id"
        case commentCount = "comment_count"
        case diggCount = "digg_count"
        case playCount = "play_count"
        case shareCount = "share_count"
    }

    /// Counters as given; each left out is `nil` (absent), so `AwemeStatistics()` has none set.
    public init(awemeID: String? = nil, commentCount: Int? = nil, diggCount: Int? = nil, playCount: Int? = nil, shareCount: Int? = nil) {
        self.awemeID = awemeID
        self.commentCount = commentCount
        self.diggCount = diggCount
        self.playCount = playCount
        self.shareCount = shareCount
    }

    /// Decodes the counters; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        awemeID = try c.decodeIDIfPresent(forKey: .awemeID)
        commentCount = try c.decodeCountIfPresent(forKey: .commentCount)
        diggCount = try c.decodeCountIfPresent(forKey: .diggCount)
        playCount = try c.decodeCountIfPresent(forKey: .playCount)
        shareCount = try c.decodeCountIfPresent(forKey: .shareCount)
    }
}
