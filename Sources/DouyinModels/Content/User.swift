import Foundation

/// A registered account: a video author, a commenter, the profile owner.
///
/// Only ``uid`` is required. Douyin's share pages, web comments and TikTok send far fewer
/// fields than the demo backend, so every other field is `nil` when the response leaves it out
/// (or sends `null`), except the text fields, which read as "".
public struct User: Codable, Sendable, Hashable {
    /// The account's numeric id, as a string (the API sends a string or a number).
    public var uid: String
    /// The short numeric id shown on the profile; `nil` when absent (TikTok has none).
    public var shortID: String?
    /// The user-chosen handle; often empty, `nil` when absent.
    public var uniqueID: String?
    /// The display name; "" when absent.
    public var nickname: String
    /// 0 unknown, 1 male, 2 female; `nil` when absent (share pages and web comments).
    public var gender: Int?
    /// The profile's bio line; "" when absent (web-comment users carry none).
    public var signature: String
    /// The 100×100 avatar; `nil` when absent.
    public var avatarThumb: ImageSet?
    /// The 720×720 avatar; `nil` when absent (web-comment users).
    public var avatarMedium: ImageSet?
    /// The 1080×1080 avatar; `nil` when absent (web-comment users).
    public var avatarLarger: ImageSet?
    /// The avatar's content id; `nil` when absent or `null`.
    public var avatarURI: String?
    /// How many accounts follow this one; `nil` when absent. Sent as a number or a numeric string.
    public var followerCount: Int?
    /// How many accounts this one follows; `nil` when absent. Number or numeric string.
    public var followingCount: Int?
    /// How many videos this account posted; `nil` when absent. Number or numeric string.
    public var awemeCount: Int?
    /// How many videos this account liked; `nil` when absent. Number or numeric string.
    public var favoritingCount: Int?
    /// How many likes this account's videos received in all; `nil` when absent. Share pages send
    /// it as a numeric string (`"416403"`); it is re-encoded as a JSON number.
    public var totalFavorited: Int?
    /// Zodiac sign, 1…12; `nil` when absent.
    public var constellation: Int?
    /// Birthday as the API writes it, `yyyy-MM-dd`; `nil` when absent.
    public var birthday: String?
    /// Two-letter region code; `nil` when absent.
    public var region: String?
    /// Whether the account is verified; `nil` when absent.
    public var isVerified: Bool?
    /// The verification line shown under the name; often empty, `nil` when absent.
    public var customVerify: String?
    /// When the account was created (the API sends 0 for accounts it does not date, which reads
    /// as 1970); `nil` when absent.
    public var createTime: Date?
    /// The profile's share QR code content id; `nil` when absent or `null`.
    public var shareQRCodeURI: String?
    /// The badge icon shown on the author's videos (its `url_list` may be `null`: empty then);
    /// `nil` when absent.
    public var videoIcon: ImageSet?
    /// The badge icon's virtual URI; `nil` when absent or `null`.
    public var videoIconVirtualURI: String?
    /// Whether the viewer follows this account (0 no, 1 yes, 2 mutual); `nil` when absent.
    public var followStatus: Int?

    enum CodingKeys: String, CodingKey {
        case uid, nickname, gender, signature, constellation, birthday, region
        case shortID = "short_id"
        case uniqueID = "unique_id"
        case avatarThumb = "avatar_thumb"
        case avatarMedium = "avatar_medium"
        case avatarLarger = "avatar_larger"
        case avatarURI = "avatar_uri"
        case followerCount = "follower_count"
        case followingCount = "following_count"
        case awemeCount = "aweme_count"
        case favoritingCount = "favoriting_count"
        case totalFavorited = "total_favorited"
        case isVerified = "is_verified"
        case customVerify = "custom_verify"
        case createTime = "create_time"
        case shareQRCodeURI = "share_qrcode_uri"
        case videoIcon = "video_icon"
        case videoIconVirtualURI = "video_icon_virtual_URI"
        case followStatus = "follow_status"
    }

    /// A user with its identity and any other fields; each left out is what absent means in
    /// the JSON ("" for ``nickname`` and ``signature``, `nil` otherwise), so `User(uid: "1")` is
    /// the minimal user.
    public init(uid: String, shortID: String? = nil, uniqueID: String? = nil, nickname: String = "", gender: Int? = nil,
                signature: String = "", avatarThumb: ImageSet? = nil, avatarMedium: ImageSet? = nil, avatarLarger: ImageSet? = nil,
                avatarURI: String? = nil, followerCount: Int? = nil, followingCount: Int? = nil, awemeCount: Int? = nil,
                favoritingCount: Int? = nil, totalFavorited: Int? = nil, constellation: Int? = nil, birthday: String? = nil,
                region: String? = nil, isVerified: Bool? = nil, customVerify: String? = nil, createTime: Date? = nil,
                shareQRCodeURI: String? = nil, videoIcon: ImageSet? = nil, videoIconVirtualURI: String? = nil, followStatus: Int? = nil) {
        self.uid = uid
        self.shortID = shortID
        self.uniqueID = uniqueID
        self.nickname = nickname
        self.gender = gender
        self.signature = signature
        self.avatarThumb = avatarThumb
        self.avatarMedium = avatarMedium
        self.avatarLarger = avatarLarger
        self.avatarURI = avatarURI
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.awemeCount = awemeCount
        self.favoritingCount = favoritingCount
        self.totalFavorited = totalFavorited
        self.constellation = constellation
        self.birthday = birthday
        self.region = region
        self.isVerified = isVerified
        self.customVerify = customVerify
        self.createTime = createTime
        self.shareQRCodeURI = shareQRCodeURI
        self.videoIcon = videoIcon
        self.videoIconVirtualURI = videoIconVirtualURI
        self.followStatus = followStatus
    }

    /// Decodes a user; only `uid` is required (see the type's notes).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uid = try c.decodeID(forKey: .uid)
        shortID = try c.decodeIDIfPresent(forKey: .shortID)
        uniqueID = try c.decodeIfPresent(String.self, forKey: .uniqueID)
        nickname = try c.decodeText(forKey: .nickname)
        gender = try c.decodeIfPresent(Int.self, forKey: .gender)
        signature = try c.decodeText(forKey: .signature)
        avatarThumb = try c.decodeIfPresent(ImageSet.self, forKey: .avatarThumb)
        avatarMedium = try c.decodeIfPresent(ImageSet.self, forKey: .avatarMedium)
        avatarLarger = try c.decodeIfPresent(ImageSet.self, forKey: .avatarLarger)
        avatarURI = try c.decodeIfPresent(String.self, forKey: .avatarURI)
        followerCount = try c.decodeCountIfPresent(forKey: .followerCount)
        followingCount = try c.decodeCountIfPresent(forKey: .followingCount)
        awemeCount = try c.decodeCountIfPresent(forKey: .awemeCount)
        favoritingCount = try c.decodeCountIfPresent(forKey: .favoritingCount)
        totalFavorited = try c.decodeCountIfPresent(forKey: .totalFavorited)
        constellation = try c.decodeIfPresent(Int.self, forKey: .constellation)
        birthday = try c.decodeIfPresent(String.self, forKey: .birthday)
        region = try c.decodeIfPresent(String.self, forKey: .region)
        isVerified = try c.decodeIfPresent(Bool.self, forKey: .isVerified)
        customVerify = try c.decodeIfPresent(String.self, forKey: .customVerify)
        createTime = try c.decodeUnixTimeIfPresent(forKey: .createTime)
        shareQRCodeURI = try c.decodeIfPresent(String.self, forKey: .shareQRCodeURI)
        videoIcon = try c.decodeIfPresent(ImageSet.self, forKey: .videoIcon)
        videoIconVirtualURI = try c.decodeIfPresent(String.self, forKey: .videoIconVirtualURI)
        followStatus = try c.decodeIfPresent(Int.self, forKey: .followStatus)
    }

    /// Encodes with the API's keys, leaving out what is `nil`; counts are written as numbers.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uid, forKey: .uid)
        try c.encodeIfPresent(shortID, forKey: .shortID)
        try c.encodeIfPresent(uniqueID, forKey: .uniqueID)
        try c.encode(nickname, forKey: .nickname)
        try c.encodeIfPresent(gender, forKey: .gender)
        try c.encode(signature, forKey: .signature)
        try c.encodeIfPresent(avatarThumb, forKey: .avatarThumb)
        try c.encodeIfPresent(avatarMedium, forKey: .avatarMedium)
        try c.encodeIfPresent(avatarLarger, forKey: .avatarLarger)
        try c.encodeIfPresent(avatarURI, forKey: .avatarURI)
        try c.encodeIfPresent(followerCount, forKey: .followerCount)
        try c.encodeIfPresent(followingCount, forKey: .followingCount)
        try c.encodeIfPresent(awemeCount, forKey: .awemeCount)
        try c.encodeIfPresent(favoritingCount, forKey: .favoritingCount)
        try c.encodeIfPresent(totalFavorited, forKey: .totalFavorited)
        try c.encodeIfPresent(constellation, forKey: .constellation)
        try c.encodeIfPresent(birthday, forKey: .birthday)
        try c.encodeIfPresent(region, forKey: .region)
        try c.encodeIfPresent(isVerified, forKey: .isVerified)
        try c.encodeIfPresent(customVerify, forKey: .customVerify)
        try c.encodeUnixTimeIfPresent(createTime, forKey: .createTime)
        try c.encodeIfPresent(shareQRCodeURI, forKey: .shareQRCodeURI)
        try c.encodeIfPresent(videoIcon, forKey: .videoIcon)
        try c.encodeIfPresent(videoIconVirtualURI, forKey: .videoIconVirtualURI)
        try c.encodeIfPresent(followStatus, forKey: .followStatus)
    }
}

/// An anonymous app install that joined the group chat or commented without an account.
///
/// Only ``uid`` is required; the avatars are `nil` and ``udid`` is "" when absent.
public struct Visitor: Codable, Sendable, Hashable {
    /// The visitor's id on the chat server (a string or a number in the JSON).
    public var uid: String
    /// The device id the visitor was created for (the md5 of the device's id); "" when absent.
    public var udid: String
    /// The 50×50 avatar; `nil` when absent.
    public var avatarThumbnail: PictureInfo?
    /// The 200×200 avatar; `nil` when absent.
    public var avatarMedium: PictureInfo?
    /// The 500×500 avatar; `nil` when absent.
    public var avatarLarge: PictureInfo?

    enum CodingKeys: String, CodingKey {
        case uid, udid
        case avatarThumbnail = "avatar_thumbnail"
        case avatarMedium = "avatar_medium"
        case avatarLarge = "avatar_large"
    }

    /// A visitor with its identity and any other fields; each left out is what absent means
    /// ("" for ``udid``, `nil` for the avatars).
    public init(uid: String, udid: String = "", avatarThumbnail: PictureInfo? = nil, avatarMedium: PictureInfo? = nil,
                avatarLarge: PictureInfo? = nil) {
        self.uid = uid
        self.udid = udid
        self.avatarThumbnail = avatarThumbnail
        self.avatarMedium = avatarMedium
        self.avatarLarge = avatarLarge
    }

    /// Decodes a visitor; only `uid` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uid = try c.decodeID(forKey: .uid)
        udid = try c.decodeText(forKey: .udid)
        avatarThumbnail = try c.decodeIfPresent(PictureInfo.self, forKey: .avatarThumbnail)
        avatarMedium = try c.decodeIfPresent(PictureInfo.self, forKey: .avatarMedium)
        avatarLarge = try c.decodeIfPresent(PictureInfo.self, forKey: .avatarLarge)
    }

    /// Encodes with the API's keys, leaving out what is `nil`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uid, forKey: .uid)
        try c.encode(udid, forKey: .udid)
        try c.encodeIfPresent(avatarThumbnail, forKey: .avatarThumbnail)
        try c.encodeIfPresent(avatarMedium, forKey: .avatarMedium)
        try c.encodeIfPresent(avatarLarge, forKey: .avatarLarge)
    }
}
