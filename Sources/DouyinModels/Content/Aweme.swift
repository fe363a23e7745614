import Foundation

/// One short video post ("aweme") with its author, music, video files and counters.
///
/// Only ``awemeID`` is required. List items from Douyin's share pages carry no `create_time`,
/// `author_user_id` or `share_url`, so every other field is `nil` when absent (or `null`),
/// except ``desc`` ("") and the lists (empty).
public struct Aweme: Codable, Sendable, Hashable {
    /// The post's 19-digit id, as a string (the API sends a string or a number).
    public var awemeID: String
    /// The caption; "" when absent. ``TextExtra`` offsets count its UTF-16 code units.
    public var desc: String
    /// When the post was published; `nil` when absent (share-page list items).
    public var createTime: Date?
    /// The author's `uid`; the API sends it as a number here and a string in ``User``. `nil` when
    /// absent (share-page list items: use ``author`` then).
    public var authorUserID: String?
    /// The author's profile; `nil` when the response does not embed it.
    public var author: User?
    /// The soundtrack; `nil` when absent.
    public var music: Music?
    /// The video files and covers; `nil` when absent.
    public var video: Video?
    /// Play, like, comment and share counters; `nil` when absent.
    public var statistics: AwemeStatistics?
    /// The public share page; `nil` when absent (share-page list items).
    public var shareURL: String?
    /// The texts used when sharing; `nil` when absent.
    public var shareInfo: ShareInfo?
    /// Challenges (hashtag campaigns) the post joined; empty when absent or `null`.
    public var chaList: [Challenge]
    /// Mentions and hashtags inside ``desc``; empty when absent or `null`.
    public var textExtra: [TextExtra]
    /// 1 when pinned to the top of the author's profile, 0 when not; `nil` when absent.
    public var isTop: Int?
    /// Whether the viewer liked the post (0 or 1); `nil` when absent.
    public var userDigged: Int?
    /// Region code of the post; `nil` when absent.
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

    /// A post with its identity and any other fields; each left out is what absent means in
    /// the JSON (`nil`, "" for ``desc``, empty lists), so `Aweme(awemeID: "1")` is the minimal post.
    public init(awemeID: String, desc: String = "", createTime: Date? = nil, authorUserID: String? = nil, author: User? = nil,
                music: Music? = nil, video: Video? = nil, statistics: AwemeStatistics? = nil, shareURL: String? = nil,
                shareInfo: ShareInfo? = nil, chaList: [Challenge] = [], textExtra: [TextExtra] = [], isTop: Int? = nil,
                userDigged: Int? = nil, region: String? = nil) {
        self.awemeID = awemeID
        self.desc = desc
        self.createTime = createTime
        self.authorUserID = authorUserID
        self.author = author
        self.music = music
        self.video = video
        self.statistics = statistics
        self.shareURL = shareURL
        self.shareInfo = shareInfo
        self.chaList = chaList
        self.textExtra = textExtra
        self.isTop = isTop
        self.userDigged = userDigged
        self.region = region
    }

    /// Decodes a post; only `aweme_id` is required (see the type's notes).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        awemeID = try c.decodeID(forKey: .awemeID)
        desc = try c.decodeText(forKey: .desc)
        createTime = try c.decodeUnixTimeIfPresent(forKey: .createTime)
        authorUserID = try c.decodeIDIfPresent(forKey: .authorUserID)
        author = try c.decodeIfPresent(User.self, forKey: .author)
        music = try c.decodeIfPresent(Music.self, forKey: .music)
        video = try c.decodeIfPresent(Video.self, forKey: .video)
        statistics = try c.decodeIfPresent(AwemeStatistics.self, forKey: .statistics)
        shareURL = try c.decodeIfPresent(String.self, forKey: .shareURL)
        shareInfo = try c.decodeIfPresent(ShareInfo.self, forKey: .shareInfo)
        chaList = try c.decodeList([Challenge].self, forKey: .chaList)
        textExtra = try c.decodeList([TextExtra].self, forKey: .textExtra)
        isTop = try c.decodeIfPresent(Int.self, forKey: .isTop)
        userDigged = try c.decodeIfPresent(Int.self, forKey: .userDigged)
        region = try c.decodeIfPresent(String.self, forKey: .region)
    }

    /// Encodes with the API's keys, leaving out what is `nil`; lists are written even when empty.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(awemeID, forKey: .awemeID)
        try c.encode(desc, forKey: .desc)
        try c.encodeUnixTimeIfPresent(createTime, forKey: .createTime)
        try c.encodeIfPresent(authorUserID, forKey: .authorUserID)
        try c.encodeIfPresent(author, forKey: .author)
        try c.encodeIfPresent(music, forKey: .music)
        try c.encodeIfPresent(video, forKey: .video)
        try c.encodeIfPresent(statistics, forKey: .statistics)
        try c.encodeIfPresent(shareURL, forKey: .shareURL)
        try c.encodeIfPresent(shareInfo, forKey: .shareInfo)
        try c.encode(chaList, forKey: .chaList)
        try c.encode(textExtra, forKey: .textExtra)
        try c.encodeIfPresent(isTop, forKey: .isTop)
        try c.encodeIfPresent(userDigged, forKey: .userDigged)
        try c.encodeIfPresent(region, forKey: .region)
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
