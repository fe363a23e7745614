import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Douyin's share-page list: `{status_code, aweme_list, max_cursor, has_more}`.
struct ShareList: Codable, Equatable {
    var awemeList: [Aweme]
    enum CodingKeys: String, CodingKey { case awemeList = "aweme_list" }
}

/// Douyin's share-page profile: `{status_code, user_info}`.
struct ShareProfile: Codable, Equatable {
    var userInfo: User
    enum CodingKeys: String, CodingKey { case userInfo = "user_info" }
}

/// Douyin's web and TikTok's comment lists: `{status_code, comments, cursor, has_more, total}`.
struct CommentList: Codable, Equatable {
    var comments: [Comment]
}

/// Issue 13: responses of Douyin's own app and web API and of TikTok, which send far fewer
/// fields than the demo backend. Fixtures/api/generate.py writes them in those shapes.
@Suite("Douyin's and TikTok's own response shapes")
struct RealShapeTests {
    let decoder = JSONDecoder()

    @Test("Regression: share-page list items without create_time, author_user_id, share_url failed to decode")
    func sharePageListItems() throws {
        let items = try decoder.decode(ShareList.self, from: Fixtures.data("api/douyin-share-page-awemes.json")).awemeList
        #expect(items.map(\.awemeID) == ["7200000000000000001", "7200000000000000002"])
        let first = items[0]
        #expect(first.createTime == nil)
        #expect(first.authorUserID == nil)
        #expect(first.shareURL == nil)
        #expect(first.chaList.isEmpty)
        #expect(first.desc == "share page clip 1 #city")
        #expect(first.text(of: try #require(first.textExtra.first)) == "#city")
        // A bare JSON number beyond 2^53 keeps every digit.
        #expect(first.music?.id == "7100000000000000001")
        #expect(first.music?.length == .seconds(15))
        #expect(first.video?.length == .milliseconds(15001))
        #expect(first.video?.playAddr?.urlList == ["https://p9.example-cdn.test/img/play/sp1.webp"])
        #expect(first.video?.ratio == "540p")
        #expect(first.statistics?.diggCount == 5001)
        #expect(first.statistics?.commentCount == 41)
        #expect(first.statistics?.awemeID == first.awemeID)
    }

    @Test("Regression: share-page authors without gender, constellation, birthday, is_verified, create_time failed to decode")
    func sharePageAuthor() throws {
        let author = try #require(try decoder.decode(ShareList.self, from: Fixtures.data("api/douyin-share-page-awemes.json")).awemeList[0].author)
        #expect(author.uid == "88123000001")
        #expect(author.nickname == "Harbour Lights")
        #expect(author.gender == nil)
        #expect(author.constellation == nil)
        #expect(author.birthday == nil)
        #expect(author.isVerified == nil)
        #expect(author.createTime == nil)
        #expect(author.shortID == "123000001")
        #expect(author.avatarLarger?.uri == "sl88123000001")
    }

    @Test("Regression: total_favorited sent as the string \"416017\" failed to decode")
    func countsAsNumericStrings() throws {
        let user = try decoder.decode(ShareProfile.self, from: Fixtures.data("api/douyin-share-page-user.json")).userInfo
        #expect(user.totalFavorited == 416_017)
        #expect(user.followerCount == 59_431)
        #expect(user.awemeCount == 31)
        #expect(user.followingCount == 12)
        #expect(user.favoritingCount == 0)
    }

    @Test func countsAreReadAsIntegersNeverThroughDouble() throws {
        // 2^53 + 1: a Double would round it to 2^53.
        let json = #"{"uid": "1", "total_favorited": "9007199254740993", "follower_count": 9007199254740993}"#
        let user = try decoder.decode(User.self, from: Data(json.utf8))
        #expect(user.totalFavorited == 9_007_199_254_740_993)
        #expect(user.followerCount == 9_007_199_254_740_993)
    }

    @Test func countsAreWrittenBackAsNumbers() throws {
        let user = try decoder.decode(ShareProfile.self, from: Fixtures.data("api/douyin-share-page-user.json")).userInfo
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(user)) as? [String: Any])
        #expect(object["total_favorited"] as? Int == 416_017)
        #expect(object["aweme_count"] as? Int == 31)
        // Absent fields stay absent rather than turning into zeros or nulls.
        #expect(object["gender"] == nil)
        #expect(object["create_time"] == nil)
    }

    @Test("Regression: Douyin web comments without user_type, with sparse users, failed to decode")
    func webCommentsWithSparseUsers() throws {
        let comments = try decoder.decode(CommentList.self, from: Fixtures.data("api/douyin-web-comments.json")).comments
        #expect(comments.map(\.cid) == ["7250000000000000001", "7250000000000000002"])
        #expect(comments.map(\.userType) == [.user, .user])
        #expect(comments.map(\.diggCount) == [321, 12])
        #expect(comments[0].text == "the light at 0:12 👌")
        #expect(comments[0].createTime == Date(timeIntervalSince1970: 1_690_000_001))
        #expect(comments[0].awemeID == "7200000000000000001")
        let user = try #require(comments[0].user)
        #expect(user.nickname == "morning tea")
        #expect(user.signature == "")
        #expect(user.avatarThumb?.urlList == ["https://p9.example-cdn.test/img/100x100/wt90000000001.webp"])
        #expect(user.avatarMedium == nil && user.avatarLarger == nil)
        #expect(user.followerCount == nil && user.followingCount == nil && user.awemeCount == nil && user.totalFavorited == nil)
        #expect(comments[0].authorName == "morning tea")
    }

    @Test("Regression: TikTok comments without user_type and users without short_id failed to decode")
    func tiktokComments() throws {
        let comments = try decoder.decode(CommentList.self, from: Fixtures.data("api/tiktok-comments.json")).comments
        #expect(comments.count == 2)
        #expect(comments.allSatisfy { $0.userType == .user })
        #expect(comments[1].user?.uid == "6800000000000000002")
        #expect(comments[1].user?.nickname == "Ana B")
        #expect(comments[1].user?.uniqueID == "ana_b")
        #expect(comments[1].user?.shortID == nil)
        #expect(comments[1].diggCount == 1204)
        #expect(comments[1].text == "part 2 please")
    }

    @Test(arguments: [
        (#"{"cid": 1, "visitor": {"uid": "v1"}}"#, CommentAuthorKind.visitor),
        (#"{"cid": 1, "user": {"uid": "u1"}}"#, .user),
        (#"{"cid": 1, "user_type": null, "visitor": {"uid": "v1"}}"#, .visitor),
        (#"{"cid": 1}"#, .unknown("")),
        (#"{"cid": 1, "user_type": "bot", "user": {"uid": "u1"}}"#, .unknown("bot")),
        (#"{"cid": 1, "user_type": "visitor", "user": {"uid": "u1"}}"#, .visitor),
    ])
    func userTypeIsSentOrInferred(json: String, kind: CommentAuthorKind) throws {
        let comment = try decoder.decode(Comment.self, from: Data(json.utf8))
        #expect(comment.userType == kind)
        // The kind is written back, so a second decode agrees without inferring again.
        let again = try decoder.decode(Comment.self, from: JSONEncoder().encode(comment))
        #expect(again == comment)
    }

    @Test(arguments: [
        (#"{"aweme_id": "7"}"#, "Aweme"), (#"{"uid": 7}"#, "User"), (#"{"cid": "7"}"#, "Comment"),
        (#"{"id": 7}"#, "GroupChat"), (#"{"uid": "7"}"#, "Visitor"),
    ])
    func identityAloneDecodes(json: String, model: String) throws {
        let data = Data(json.utf8)
        switch model {
        case "Aweme": #expect(try decoder.decode(Aweme.self, from: data) == Aweme(awemeID: "7"))
        case "User": #expect(try decoder.decode(User.self, from: data) == User(uid: "7"))
        case "Comment": #expect(try decoder.decode(Comment.self, from: data).cid == "7")
        case "GroupChat": #expect(try decoder.decode(GroupChat.self, from: data).msgType == .unknown(""))
        default: #expect(try decoder.decode(Visitor.self, from: data) == Visitor(uid: "7"))
        }
    }

    @Test(arguments: [("Aweme", "aweme_id"), ("User", "uid"), ("Comment", "cid"), ("GroupChat", "id")])
    func identityIsRequired(model: String, key: String) throws {
        let data = Data(#"{"desc": "x", "text": "y"}"#.utf8)
        let error: (any Error)? = {
            do {
                switch model {
                case "Aweme": _ = try decoder.decode(Aweme.self, from: data)
                case "User": _ = try decoder.decode(User.self, from: data)
                case "Comment": _ = try decoder.decode(Comment.self, from: data)
                default: _ = try decoder.decode(GroupChat.self, from: data)
                }
                return nil
            } catch {
                return error
            }
        }()
        let decoding = try #require(error as? DecodingError)
        #expect(decoding.jsonPath == key)
    }

    @Test func everyRealShapeRoundTrips() throws {
        func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ file: String) throws {
            let first = try decoder.decode(type, from: Fixtures.data(file))
            #expect(try decoder.decode(type, from: JSONEncoder().encode(first)) == first, "\(file)")
        }
        try roundTrip(ShareList.self, "api/douyin-share-page-awemes.json")
        try roundTrip(ShareProfile.self, "api/douyin-share-page-user.json")
        try roundTrip(CommentList.self, "api/douyin-web-comments.json")
        try roundTrip(CommentList.self, "api/tiktok-comments.json")
    }
}
