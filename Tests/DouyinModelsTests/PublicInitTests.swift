import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Pins: the models had public initializers for their identity only (GroupChat took id, kind,
/// text and visitor: no pictures, no create_time), so code outside the module — an app's tests,
/// its SwiftUI previews, DouyinChat's own messages — could not build a complete value without
/// decoding JSON. Each test rebuilds a decoded fixture through the public initializer, passing
/// every field, and expects the same value.
@Suite("Every model can be built field by field from outside the module")
struct PublicInitTests {
    @Test func groupChatWithPicturesAndCreateTime() throws {
        let page = try JSONDecoder().decode(APIResponse<[GroupChat]>.self, from: Fixtures.data("api/groupchats.json"))
        let decoded = try #require(page.data?.first { $0.msgType == .image && $0.picOriginal != nil && $0.visitor?.avatarLarge != nil })
        let visitor = try #require(decoded.visitor)
        let built = GroupChat(id: decoded.id, msgType: decoded.msgType, msgContent: decoded.msgContent,
                              visitor: Visitor(uid: visitor.uid, udid: visitor.udid, avatarThumbnail: visitor.avatarThumbnail,
                                               avatarMedium: visitor.avatarMedium, avatarLarge: visitor.avatarLarge),
                              picThumbnail: decoded.picThumbnail, picMedium: decoded.picMedium, picLarge: decoded.picLarge,
                              picOriginal: decoded.picOriginal, createTime: decoded.createTime)
        #expect(built == decoded)
        #expect(Self.unsetFields(built).isEmpty, "every field of GroupChat is reachable: \(Self.unsetFields(built))")
        // The minimal form still reads as absent fields.
        let minimal = GroupChat(id: "1")
        #expect(minimal.createTime == nil && minimal.picOriginal == nil && minimal.msgType == .text && minimal.msgContent.isEmpty)
    }

    @Test func commentWithEveryFieldAndAnExplicitAuthorKind() throws {
        let page = try JSONDecoder().decode(APIResponse<[Comment]>.self, from: Fixtures.data("api/comments.json"))
        let decoded = try #require(page.data?.first { $0.user != nil && $0.awemeID != nil && $0.diggCount != nil })
        let built = Comment(cid: decoded.cid, awemeID: decoded.awemeID, text: decoded.text, diggCount: decoded.diggCount,
                            createTime: decoded.createTime, userType: decoded.userType, user: decoded.user, visitor: decoded.visitor)
        #expect(built == decoded)
        // nil infers the kind as decoding does; an explicit kind is kept.
        #expect(Comment(cid: "1", user: User(uid: "2")).userType == .user)
        #expect(Comment(cid: "1", visitor: Visitor(uid: "3")).userType == .visitor)
        #expect(Comment(cid: "1", userType: .unknown("bot"), user: User(uid: "2")).userType == .unknown("bot"))
        let full = Comment(cid: "1", awemeID: "2", text: "t", diggCount: 3, createTime: Date(timeIntervalSince1970: 4),
                           userType: .user, user: User(uid: "5"), visitor: Visitor(uid: "6"))
        #expect(Self.unsetFields(full).isEmpty, "\(Self.unsetFields(full))")
    }

    @Test func userWithEveryField() throws {
        let decoded = try #require(try JSONDecoder().decode(APIResponse<User>.self, from: Fixtures.data("api/user.json")).data)
        let built = User(uid: decoded.uid, shortID: decoded.shortID, uniqueID: decoded.uniqueID, nickname: decoded.nickname,
                         gender: decoded.gender, signature: decoded.signature, avatarThumb: decoded.avatarThumb,
                         avatarMedium: decoded.avatarMedium, avatarLarger: decoded.avatarLarger, avatarURI: decoded.avatarURI,
                         followerCount: decoded.followerCount, followingCount: decoded.followingCount, awemeCount: decoded.awemeCount,
                         favoritingCount: decoded.favoritingCount, totalFavorited: decoded.totalFavorited,
                         constellation: decoded.constellation, birthday: decoded.birthday, region: decoded.region,
                         isVerified: decoded.isVerified, customVerify: decoded.customVerify, createTime: decoded.createTime,
                         shareQRCodeURI: decoded.shareQRCodeURI, videoIcon: decoded.videoIcon,
                         videoIconVirtualURI: decoded.videoIconVirtualURI, followStatus: decoded.followStatus)
        #expect(built == decoded)
        // The fields the fixture leaves null, set through the initializer, are kept.
        let set = User(uid: "1", avatarURI: "a", shareQRCodeURI: "q", videoIconVirtualURI: "v")
        #expect(set.avatarURI == "a" && set.shareQRCodeURI == "q" && set.videoIconVirtualURI == "v")
    }

    @Test func awemeAndItsPartsWithEveryField() throws {
        let feed = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json"))
        let decoded = try #require(feed.data?.first)
        let video = try #require(decoded.video), music = try #require(decoded.music)
        let statistics = try #require(decoded.statistics), share = try #require(decoded.shareInfo)
        let builtVideo = Video(playAddr: video.playAddr, playAddrLowbr: video.playAddrLowbr, cover: video.cover, originCover: video.originCover,
                               dynamicCover: video.dynamicCover, downloadAddr: video.downloadAddr, width: video.width, height: video.height,
                               duration: video.duration, ratio: video.ratio, hasWatermark: video.hasWatermark, bitRate: video.bitRate)
        let builtMusic = Music(id: music.id, idStr: music.idStr, title: music.title, author: music.author, duration: music.duration,
                               playURL: music.playURL, coverLarge: music.coverLarge, coverMedium: music.coverMedium,
                               coverThumb: music.coverThumb, coverHD: music.coverHD, userCount: music.userCount, extra: music.extra)
        let builtStatistics = AwemeStatistics(awemeID: statistics.awemeID, commentCount: statistics.commentCount, diggCount: statistics.diggCount,
                                         playCount: statistics.playCount, shareCount: statistics.shareCount)
        let builtShare = ShareInfo(shareURL: share.shareURL, shareTitle: share.shareTitle, shareDesc: share.shareDesc)
        let builtChallenges = decoded.chaList.map { Challenge(cid: $0.cid, chaName: $0.chaName, desc: $0.desc, userCount: $0.userCount) }
        let built = Aweme(awemeID: decoded.awemeID, desc: decoded.desc, createTime: decoded.createTime, authorUserID: decoded.authorUserID,
                          author: decoded.author, music: builtMusic, video: builtVideo, statistics: builtStatistics,
                          shareURL: decoded.shareURL, shareInfo: builtShare, chaList: builtChallenges, textExtra: decoded.textExtra,
                          isTop: decoded.isTop, userDigged: decoded.userDigged, region: decoded.region)
        #expect(built == decoded)
        for value: Any in [builtVideo, builtMusic, builtStatistics, builtShare, builtChallenges[0], built] {
            #expect(Self.unsetFields(value).isEmpty, "\(type(of: value)): \(Self.unsetFields(value))")
        }
        // The identity-only forms still compile and read as absent fields.
        #expect(Video() == Video(playAddr: nil) && Music().title.isEmpty && AwemeStatistics().diggCount == nil && ShareInfo().shareURL == nil)
    }

    /// The stored properties of `value` that are `nil`, "" or an empty collection: a field the
    /// initializer did not reach when every argument was given a value.
    static func unsetFields(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let mirror = Mirror(reflecting: child.value)
            let empty = (mirror.displayStyle == .optional && mirror.children.isEmpty)
                || (mirror.displayStyle == .collection && mirror.children.isEmpty)
                || (child.value as? String)?.isEmpty == true
            return empty ? child.label ?? "?" : nil
        }
    }
}
