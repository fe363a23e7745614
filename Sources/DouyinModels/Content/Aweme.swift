import Foundation

/// One short video post ("aweme") with its author, music, video files and counters.
public struct Aweme: Codable, Sendable, Hashable {
    /// The post's 19-digit id, as a string.
    @FlexibleID public var awemeID: String
    /// The caption; ``TextExtra`` offsets count its UTF-16 code units.
    public var desc: String
    /// When the post was published.
    @UnixTime public var createTime: Date
    /// The author's `uid`; the API sends it as a number here and a string in ``User``.
    @FlexibleID public var authorUserID: String
    /// The author's profile, when the response embeds it.
    public var author: User?
    /// The soundtrack.
    public var music: Music?
    /// The video files and covers.
    public var video: Video
    /// Play, like, comment and share counters.
    public var statistics: Statistics
    /// The public share page.
    public var shareURL: String
    /// The texts used when sharing.
    public var shareInfo: ShareInfo?
    /// Challenges (hashtag campaigns) the post joined; `null` reads as empty.
    @EmptyIfNull public var chaList: [Challenge]
    /// Mentions and hashtags inside ``desc``.
    @EmptyIfNull public var textExtra: [TextExtra]
    /// 1 when pinned to the top of the author's profile.
    public var isTop: Int?
    /// Whether the viewer liked the post (0 or 1).
    public var userDigged: Int?
    /// Region code of the post.
    public var region: String?

    enum CodingKeys: String, CodingKey {
        case desc, author, music, video, statistics, region
        case awemeID = "aweme_id"
        case createTime = "create_time"
        case authorUserID = "author_user_id"
        case shareURL = "share_url"
        case shareInfo = "share_info"
        case chaList = "cha_list"
        case textExtra = "text_extra"
        case isTop = "is_top"
        case userDigged = "user_digged"
    }

    /// The part of ``desc`` that `extra` marks, or `nil` when its offsets fall outside the caption
    /// or split a character.
    public func text(of extra: TextExtra) -> Substring? {
        let units = desc.utf16
        guard extra.start >= 0, extra.start <= extra.end, extra.end <= units.count else { return nil }
        let start = units.index(units.startIndex, offsetBy: extra.start)
        let end = units.index(start, offsetBy: extra.end - extra.start)
        guard let lower = String.Index(start, within: desc), let upper = String.Index(end, within: desc) else {
            return nil
        }
        return desc[lower..<upper]
    }
}

/// The video files of a post and their covers.
public struct Video: Codable, Sendable, Hashable {
    /// The full-quality stream.
    public var playAddr: ImageSet
    /// A lower-bitrate stream for slow networks.
    public var playAddrLowbr: ImageSet?
    /// The still cover.
    public var cover: ImageSet
    /// The cover at the video's own aspect ratio.
    public var originCover: ImageSet?
    /// The animated WebP cover shown in profile grids.
    public var dynamicCover: ImageSet?
    /// The watermarked file for downloads.
    public var downloadAddr: ImageSet?
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Length in **milliseconds** (``Music/duration`` is in seconds).
    public var duration: Int
    /// The quality label, such as `720p`.
    public var ratio: String
    /// Whether the files carry a watermark.
    public var hasWatermark: Bool?

    enum CodingKeys: String, CodingKey {
        case cover, width, height, duration, ratio
        case playAddr = "play_addr"
        case playAddrLowbr = "play_addr_lowbr"
        case originCover = "origin_cover"
        case dynamicCover = "dynamic_cover"
        case downloadAddr = "download_addr"
        case hasWatermark = "has_watermark"
    }

    /// The length as a time interval in seconds.
    public var durationSeconds: TimeInterval { TimeInterval(duration) / 1000 }
}

/// A post's soundtrack.
public struct Music: Codable, Sendable, Hashable {
    /// The 19-digit music id, as a string.
    @FlexibleID public var id: String
    /// The same id as the API's string field, when sent.
    public var idStr: String?
    /// The track's title.
    public var title: String
    /// The track's author.
    public var author: String
    /// Length in **seconds** (``Video/duration`` is in milliseconds).
    public var duration: Int
    /// The audio file.
    public var playURL: ImageSet?
    /// The large cover.
    public var coverLarge: ImageSet?
    /// The medium cover.
    public var coverMedium: ImageSet?
    /// The thumbnail cover.
    public var coverThumb: ImageSet?
    /// The HD cover.
    public var coverHD: ImageSet?
    /// How many posts use the track.
    public var userCount: Int?
    /// JSON inside a string, as the API sends it; see ``decodedExtra(as:)``.
    public var extra: String?

    enum CodingKeys: String, CodingKey {
        case id, title, author, duration, extra
        case idStr = "id_str"
        case playURL = "play_url"
        case coverLarge = "cover_large"
        case coverMedium = "cover_medium"
        case coverThumb = "cover_thumb"
        case coverHD = "cover_hd"
        case userCount = "user_count"
    }

    /// Decodes the JSON held inside ``extra``; `nil` when there is none.
    public func decodedExtra<T: Decodable>(as type: T.Type = JSONValue.self) throws -> T? {
        guard let extra, !extra.isEmpty else { return nil }
        return try JSONDecoder().decode(type, from: Data(extra.utf8))
    }
}

/// A post's counters.
public struct Statistics: Codable, Sendable, Hashable {
    /// The post these counters belong to.
    @FlexibleID public var awemeID: String
    /// Comments.
    public var commentCount: Int
    /// Likes.
    public var diggCount: Int
    /// Plays.
    public var playCount: Int
    /// Shares.
    public var shareCount: Int

    enum CodingKeys: String, CodingKey {
        case awemeID = "aweme_id"
        case commentCount = "comment_count"
        case diggCount = "digg_count"
        case playCount = "play_count"
        case shareCount = "share_count"
    }
}

/// A hashtag campaign a post joined.
public struct Challenge: Codable, Sendable, Hashable {
    /// The challenge's id.
    @FlexibleID public var cid: String
    /// The challenge's name, shown with a `#`.
    public var chaName: String
    /// The challenge's description.
    public var desc: String?
    /// How many users joined.
    public var userCount: Int?

    enum CodingKeys: String, CodingKey {
        case cid, desc
        case chaName = "cha_name"
        case userCount = "user_count"
    }
}

/// A mention or hashtag inside a caption, located by UTF-16 offsets; see ``Aweme/text(of:)``.
public struct TextExtra: Codable, Sendable, Hashable {
    /// Offset of the first UTF-16 code unit in ``Aweme/desc``.
    public var start: Int
    /// Offset one past the last UTF-16 code unit.
    public var end: Int
    /// 0 a mention, 1 a hashtag.
    public var type: Int
    /// The mentioned user's id, for mentions.
    public var userID: String?
    /// The hashtag's name, for hashtags.
    public var hashtagName: String?

    enum CodingKeys: String, CodingKey {
        case start, end, type
        case userID = "user_id"
        case hashtagName = "hashtag_name"
    }

    /// Builds a text extra from UTF-16 offsets into a caption.
    public init(start: Int, end: Int, type: Int, userID: String? = nil, hashtagName: String? = nil) {
        self.start = start
        self.end = end
        self.type = type
        self.userID = userID
        self.hashtagName = hashtagName
    }
}

/// The texts a share sheet uses for a post.
public struct ShareInfo: Codable, Sendable, Hashable {
    /// The share page.
    public var shareURL: String
    /// The share title.
    public var shareTitle: String?
    /// The share description.
    public var shareDesc: String?

    enum CodingKeys: String, CodingKey {
        case shareURL = "share_url"
        case shareTitle = "share_title"
        case shareDesc = "share_desc"
    }
}
