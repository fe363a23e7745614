import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

@Suite("Decoding the package's own fixtures")
struct FixtureDecodingTests {
    let decoder = JSONDecoder()

    @Test func userProfile() throws {
        let response = try decoder.decode(APIResponse<User>.self, from: Fixtures.data("api/user.json"))
        let user = try response.value()
        #expect(user.uid == "97795069001")
        #expect(user.nickname == "Lin Xiao")
        #expect(user.signature == "Cats, coffee & code ☕")
        #expect(user.followerCount == 1520)
        #expect(user.totalFavorited == 98321)
        #expect(user.birthday == "1993-11-02")
        #expect(user.avatarThumb?.urlList.first == "https://p1.example-cdn.test/img/100x100/avatar97795069001.jpeg")
        #expect(response.totalCount == nil)
        #expect(response.hasMore == nil)
    }

    @Test func nullStringsAndListsAreAbsentOrEmpty() throws {
        let user = try decoder.decode(APIResponse<User>.self, from: Fixtures.data("api/user.json")).value()
        #expect(user.shareQRCodeURI == nil)
        #expect(user.videoIconVirtualURI == nil)
        #expect(user.videoIcon?.urlList == [])
    }

    @Test func feedPageKeepsItemsOverTotalCount() throws {
        let response = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json"))
        let page = try response.page()
        #expect(page.items.count == 4)
        #expect(page.reportedTotalCount == 7)
        #expect(page.hasMore)
        let last = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed-page2.json")).page()
        #expect(!last.hasMore)
        #expect(last.items.map(\.desc) == ["page two"])
    }

    @Test func awemeFields() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        let first = feed[0]
        #expect(first.awemeID == "6600000000000000001")
        #expect(first.authorUserID == "97795069001")
        #expect(first.author?.uid == first.authorUserID)
        #expect(first.createTime == Date(timeIntervalSince1970: 1_530_003_600))
        #expect(first.video?.duration == 8137)
        #expect(first.video?.length == .milliseconds(8137))
        #expect(first.music?.duration == 11)
        #expect(first.statistics?.diggCount == 1007)
        #expect(first.chaList.map(\.chaName) == ["challenge1"])
        #expect(feed[1].chaList.isEmpty)
        #expect(first.isTop == 1)
    }

    @Test func nineteenDigitIdsKeepEveryDigit() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        // feed[1] sends music.id as a bare JSON number above 2^53; a Double would round it.
        #expect(feed[1].music?.id == "6500000000000000017")
        #expect(feed[1].music?.id == feed[1].music?.idStr)
        #expect(feed[0].music?.id == "6500000000000000010")
        #expect(feed[0].statistics?.awemeID == "6600000000000000001")
    }

    @Test func textExtraOffsetsCountUTF16Units() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        let hashtag = try #require(feed[0].textExtra.first)
        #expect(feed[0].text(of: hashtag) == "#cats")
        let mention = try #require(feed[2].textExtra.first)
        #expect(feed[2].text(of: mention) == "@Lin Xiao")
    }

    @Test func textExtraOutsideTheCaptionOrInsideACharacterIsNil() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        let beyond = TextExtra(start: 0, end: 500, type: 1)
        #expect(feed[0].text(of: beyond) == nil)
        // Offset 1 falls between the two UTF-16 units of the leading emoji.
        let split = TextExtra(start: 1, end: 3, type: 1)
        #expect(feed[0].text(of: split) == nil)
    }

    @Test func musicExtraDecodesOnDemand() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        let extra = try #require(try feed[0].music?.decodedExtra())
        #expect(extra["has_edited"] == .integer(1))
        #expect(extra["beats"]?["level"] == .integer(1))
    }

    @Test func httpURLsAreKept() throws {
        let feed = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json")).value()
        let url = try #require(feed[2].video?.playAddr?.urls.first)
        #expect(url.scheme == "http")
    }

    @Test func commentsByUserVisitorAndUnknownKind() throws {
        let comments = try decoder.decode(APIResponse<[Comment]>.self, from: Fixtures.data("api/comments.json")).value()
        #expect(comments.map(\.userType) == [.user, .visitor, .unknown("bot")])
        #expect(comments[0].user?.nickname == "山川")
        #expect(comments[0].visitor == nil)
        #expect(comments[1].visitor?.avatarMedium?.width == 200)
        #expect(comments[1].user == nil)
        #expect(comments[0].authorName == "山川")
        #expect(comments[1].authorName == "visitor 5b4096f8e43d130352e40001")
        #expect(comments[2].authorName == nil)
        // The guest's avatar_uri is null in the fixture.
        #expect(comments[0].user?.avatarURI == nil)
    }

    @Test func groupChatEveryMessageType() throws {
        let page = try decoder.decode(APIResponse<[GroupChat]>.self, from: Fixtures.data("api/groupchats.json")).page()
        #expect(page.items.map(\.msgType) == [.system, .text, .image, .unknown("sticker")])
        #expect(page.hasMore)
        let image = page.items[2]
        #expect(image.picOriginal == PictureInfo(fileID: "p4", url: "http://chat.example.test/image?id=p4", width: 3072, height: 2047))
        #expect(page.items[0].picThumbnail == nil)
        #expect(page.items[0].visitor?.avatarThumbnail?.type == "image/jpeg")
    }

    @Test func emotionTable() throws {
        let table = try decoder.decode(EmotionTable.self, from: Fixtures.data("api/emotions.json"))
        #expect(table.dict["keai"] == "[可爱]")
        #expect(table.texts(onPage: 0) == ["[微笑]", "[可爱]", "[呲牙]"])
        #expect(table.texts(onPage: 1) == ["[枯叶]", "[白眼]"])
        #expect(table.texts(onPage: 9) == [])
    }

    @Test func serverErrorIsTyped() throws {
        let response = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/error.json"))
        #expect(throws: ModelsError.server(code: 2001, message: "aweme not found")) { try response.value() }
        #expect(response.data == nil)
    }

    @Test func successWithoutDataIsTyped() throws {
        let response = try decoder.decode(APIResponse<User>.self, from: Data(#"{"code":0,"message":"success","data":null}"#.utf8))
        #expect(throws: ModelsError.missingData) { try response.value() }
    }

    @Test func emptyDataIsAnEmptyPage() throws {
        let page = try decoder.decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/empty.json")).page()
        #expect(page.items.isEmpty)
        #expect(!page.hasMore)
    }

    @Test func hasMoreAcceptsBooleans() throws {
        let json = #"{"code":0,"message":"","data":[],"has_more":true}"#
        #expect(try decoder.decode(APIResponse<[Comment]>.self, from: Data(json.utf8)).hasMore == true)
    }
}
