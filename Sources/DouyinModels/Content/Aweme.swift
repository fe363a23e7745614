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
    public var statistics: Statistics?
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
                music: Music? = nil, video: Video? = nil, statistics: Statistics? = nil, shareURL: String? = nil,
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
        statistics = try c.decodeIfPresent(Statistics.self, forKey: .statistics)
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

/// The video files of a post and their covers. Every field is `nil` when absent.
public struct Video: Codable, Sendable, Hashable {
    /// The full-quality stream.
    public var playAddr: ImageSet?
    /// A lower-bitrate stream for slow networks.
    public var playAddrLowbr: ImageSet?
    /// The still cover.
    public var cover: ImageSet?
    /// The cover at the video's own aspect ratio.
    public var originCover: ImageSet?
    /// The animated WebP cover shown in profile grids.
    public var dynamicCover: ImageSet?
    /// The watermarked file for downloads.
    public var downloadAddr: ImageSet?
    /// Width in pixels.
    public var width: Int?
    /// Height in pixels.
    public var height: Int?
    /// Length in **milliseconds** as sent (``Music/duration`` is in seconds); see ``length``.
    public var duration: Int?
    /// The quality label, such as `720p`.
    public var ratio: String?
    /// Whether the files carry a watermark.
    public var hasWatermark: Bool?
    /// The stream's quality levels with their bitrates (`bit_rate`), as sent: the captures
    /// send one, Douyin's own API one per gear. `nil` when absent; see ``BitRate``.
    public var bitRate: [BitRate]?

    enum CodingKeys: String, CodingKey {
        case cover, width, height, duration, ratio
        case bitRate = "bit_rate"
        case playAddr = "play_addr"
        case playAddrLowbr = "play_addr_lowbr"
        case originCover = "origin_cover"
        case dynamicCover = "dynamic_cover"
        case downloadAddr = "download_addr"
        case hasWatermark = "has_watermark"
    }

    /// A video with any of its fields; each left out is `nil` (absent), so `Video()` has none set.
    public init(playAddr: ImageSet? = nil, playAddrLowbr: ImageSet? = nil, cover: ImageSet? = nil, originCover: ImageSet? = nil,
                dynamicCover: ImageSet? = nil, downloadAddr: ImageSet? = nil, width: Int? = nil, height: Int? = nil,
                duration: Int? = nil, ratio: String? = nil, hasWatermark: Bool? = nil, bitRate: [BitRate]? = nil) {
        self.playAddr = playAddr
        self.playAddrLowbr = playAddrLowbr
        self.cover = cover
        self.originCover = originCover
        self.dynamicCover = dynamicCover
        self.downloadAddr = downloadAddr
        self.width = width
        self.height = height
        self.duration = duration
        self.ratio = ratio
        self.hasWatermark = hasWatermark
        self.bitRate = bitRate
    }

    /// The length as a `Duration` (``duration`` is in milliseconds); `nil` when absent.
    public var length: Duration? { duration.map { .milliseconds($0) } }
}

/// One quality level of a video's stream (an element of `video.bit_rate`). Every field is `nil`
/// when absent.
public struct BitRate: Codable, Sendable, Hashable {
    /// Bits per second (a number or a numeric string in the JSON, written back as a number).
    public var bitRate: Int?
    /// The level's name, such as `normal`.
    public var gearName: String?
    /// The API's code for the level.
    public var qualityType: Int?

    enum CodingKeys: String, CodingKey {
        case bitRate = "bit_rate"
        case gearName = "gear_name"
        case qualityType = "quality_type"
    }

    /// A level with no fields set.
    public init(bitRate: Int? = nil, gearName: String? = nil, qualityType: Int? = nil) {
        self.bitRate = bitRate
        self.gearName = gearName
        self.qualityType = qualityType
    }

    /// Decodes a level; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bitRate = try c.decodeCountIfPresent(forKey: .bitRate)
        gearName = try c.decodeIfPresent(String.self, forKey: .gearName)
        qualityType = try c.decodeCountIfPresent(forKey: .qualityType)
    }
}

/// A post's soundtrack. Every field is `nil` when absent, except the title and author ("").
public struct Music: Codable, Sendable, Hashable {
    /// The 19-digit music id, as a string (a string or a bare number beyond 2^53 in the JSON).
    public var id: String?
    /// The same id as the API's string field, when sent.
    public var idStr: String?
    /// The track's title; "" when absent.
    public var title: String
    /// The track's author; "" when absent.
    public var author: String
    /// Length in **seconds** as sent (``Video/duration`` is in milliseconds); see ``length``.
    public var duration: Int?
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
    /// How many posts use the track (a number or a numeric string in the JSON, written back as a number).
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

    /// A track with any of its fields; each left out is what absent means (`nil`, "" for the
    /// title and author), so `Music()` has none set. ``duration`` is in seconds.
    public init(id: String? = nil, idStr: String? = nil, title: String = "", author: String = "", duration: Int? = nil,
                playURL: ImageSet? = nil, coverLarge: ImageSet? = nil, coverMedium: ImageSet? = nil, coverThumb: ImageSet? = nil,
                coverHD: ImageSet? = nil, userCount: Int? = nil, extra: String? = nil) {
        self.id = id
        self.idStr = idStr
        self.title = title
        self.author = author
        self.duration = duration
        self.playURL = playURL
        self.coverLarge = coverLarge
        self.coverMedium = coverMedium
        self.coverThumb = coverThumb
        self.coverHD = coverHD
        self.userCount = userCount
        self.extra = extra
    }

    /// Decodes a track; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIDIfPresent(forKey: .id)
        idStr = try c.decodeIfPresent(String.self, forKey: .idStr)
        title = try c.decodeText(forKey: .title)
        author = try c.decodeText(forKey: .author)
        duration = try c.decodeIfPresent(Int.self, forKey: .duration)
        playURL = try c.decodeIfPresent(ImageSet.self, forKey: .playURL)
        coverLarge = try c.decodeIfPresent(ImageSet.self, forKey: .coverLarge)
        coverMedium = try c.decodeIfPresent(ImageSet.self, forKey: .coverMedium)
        coverThumb = try c.decodeIfPresent(ImageSet.self, forKey: .coverThumb)
        coverHD = try c.decodeIfPresent(ImageSet.self, forKey: .coverHD)
        userCount = try c.decodeCountIfPresent(forKey: .userCount)
        extra = try c.decodeIfPresent(String.self, forKey: .extra)
    }

    /// The length as a `Duration` (``duration`` is in seconds); `nil` when absent.
    public var length: Duration? { duration.map { .seconds($0) } }

    /// Decodes the JSON held inside ``extra``; `nil` when there is none.
    public func decodedExtra<T: Decodable>(as type: T.Type = JSONValue.self) throws -> T? {
        guard let extra, !extra.isEmpty else { return nil }
        return try JSONDecoder().decode(type, from: Data(extra.utf8))
    }
}

/// A post's counters. Each is `nil` when absent; each is read from a JSON number or a numeric
/// string (never through `Double`) and written back as a number.
public struct Statistics: Codable, Sendable, Hashable {
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

    /// Counters as given; each left out is `nil` (absent), so `Statistics()` has none set.
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

/// A hashtag campaign a post joined. ``cid`` is required; the name reads as "" when absent.
public struct Challenge: Codable, Sendable, Hashable {
    /// The challenge's id (a string or a number in the JSON).
    public var cid: String
    /// The challenge's name, shown with a `#`; "" when absent.
    public var chaName: String
    /// The challenge's description; `nil` when absent.
    public var desc: String?
    /// How many users joined; `nil` when absent. Number or numeric string, written back as a number.
    public var userCount: Int?

    enum CodingKeys: String, CodingKey {
        case cid, desc
        case chaName = "cha_name"
        case userCount = "user_count"
    }

    /// A challenge with its id and any other fields; each left out is what absent means ("" for
    /// the name, `nil` otherwise).
    public init(cid: String, chaName: String = "", desc: String? = nil, userCount: Int? = nil) {
        self.cid = cid
        self.chaName = chaName
        self.desc = desc
        self.userCount = userCount
    }

    /// Decodes a challenge; only `cid` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cid = try c.decodeID(forKey: .cid)
        chaName = try c.decodeText(forKey: .chaName)
        desc = try c.decodeIfPresent(String.self, forKey: .desc)
        userCount = try c.decodeCountIfPresent(forKey: .userCount)
    }
}

/// A mention or hashtag inside a caption, located by UTF-16 offsets; see ``Aweme/text(of:)``.
public struct TextExtra: Codable, Sendable, Hashable {
    /// Offset of the first UTF-16 code unit in ``Aweme/desc``; 0 when absent.
    public var start: Int
    /// Offset one past the last UTF-16 code unit; 0 when absent (with `start` absent too, the
    /// extra marks nothing).
    public var end: Int
    /// 0 a mention, 1 a hashtag; `nil` when absent.
    public var type: Int?
    /// The mentioned user's id, for mentions; `nil` when absent.
    public var userID: String?
    /// The hashtag's name, for hashtags; `nil` when absent.
    public var hashtagName: String?

    enum CodingKeys: String, CodingKey {
        case start, end, type
        case userID = "user_id"
        case hashtagName = "hashtag_name"
    }

    /// Builds a text extra from UTF-16 offsets into a caption.
    public init(start: Int, end: Int, type: Int?, userID: String? = nil, hashtagName: String? = nil) {
        self.start = start
        self.end = end
        self.type = type
        self.userID = userID
        self.hashtagName = hashtagName
    }

    /// Decodes a text extra; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = try c.decodeIfPresent(Int.self, forKey: .start) ?? 0
        end = try c.decodeIfPresent(Int.self, forKey: .end) ?? 0
        type = try c.decodeIfPresent(Int.self, forKey: .type)
        userID = try c.decodeIDIfPresent(forKey: .userID)
        hashtagName = try c.decodeIfPresent(String.self, forKey: .hashtagName)
    }
}

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
