import Foundation

/// A registered account: a video author, a commenter, the profile owner.
public struct User: Codable, Sendable, Hashable {
    /// The account's numeric id, as a string.
    @FlexibleID public var uid: String
    /// The short numeric id shown on the profile.
    @FlexibleID public var shortID: String
    /// The user-chosen handle; often empty.
    public var uniqueID: String?
    /// The display name.
    public var nickname: String
    /// 0 unknown, 1 male, 2 female.
    public var gender: Int
    /// The profile's bio line.
    public var signature: String
    /// The 100×100 avatar.
    public var avatarThumb: ImageSet
    /// The 720×720 avatar.
    public var avatarMedium: ImageSet
    /// The 1080×1080 avatar.
    public var avatarLarger: ImageSet
    /// The avatar's content id; `null` for some users.
    public var avatarURI: String?
    /// How many accounts follow this one.
    public var followerCount: Int
    /// How many accounts this one follows.
    public var followingCount: Int
    /// How many videos this account posted.
    public var awemeCount: Int
    /// How many videos this account liked.
    public var favoritingCount: Int
    /// How many likes this account's videos received in all.
    public var totalFavorited: Int
    /// Zodiac sign, 1…12.
    public var constellation: Int
    /// Birthday as the API writes it, `yyyy-MM-dd`.
    public var birthday: String
    /// Two-letter region code.
    public var region: String?
    /// Whether the account is verified.
    public var isVerified: Bool
    /// The verification line shown under the name; often empty.
    public var customVerify: String?
    /// When the account was created (the epoch for accounts the API does not date).
    @UnixTime public var createTime: Date
    /// The profile's share QR code content id; `null` for some users.
    public var shareQRCodeURI: String?
    /// The badge icon shown on the author's videos; its `url_list` may be `null`.
    public var videoIcon: ImageSet?
    /// The badge icon's virtual URI; `null` for some users.
    public var videoIconVirtualURI: String?
    /// Whether the viewer follows this account (0 no, 1 yes, 2 mutual).
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
}

/// An anonymous app install that joined the group chat or commented without an account.
public struct Visitor: Codable, Sendable, Hashable {
    /// The visitor's id on the chat server.
    @FlexibleID public var uid: String
    /// The device id the visitor was created for.
    public var udid: String
    /// The 50×50 avatar.
    public var avatarThumbnail: PictureInfo
    /// The 200×200 avatar.
    public var avatarMedium: PictureInfo
    /// The 500×500 avatar.
    public var avatarLarge: PictureInfo

    enum CodingKeys: String, CodingKey {
        case uid, udid
        case avatarThumbnail = "avatar_thumbnail"
        case avatarMedium = "avatar_medium"
        case avatarLarge = "avatar_large"
    }
}
