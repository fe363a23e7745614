import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Every real captured response must decode, with its known values.
@Suite("Real captured responses", .enabled(if: Captures.available, "the captures folder is not on this machine"))
struct CaptureConformanceTests {
    let decoder = JSONDecoder()

    @Test func user() throws {
        let user = try decoder.decode(APIResponse<User>.self, from: Captures.data("user.json")).value()
        #expect(user.uid == "97795069353")
        #expect(user.nickname == "QSHI")
        #expect(user.awemeCount == 27)
        #expect(user.favoritingCount == 40)
        #expect(user.birthday == "1918-01-01")
    }

    @Test(arguments: [
        ("awemes.json", 27, 27), ("favorites.json", 40, 40),
        ("variant/awemes.json", 42, 40), ("variant/favorites.json", 21, 20),
    ])
    func feeds(file: String, items: Int, reportedTotal: Int) throws {
        let page = try decoder.decode(APIResponse<[Aweme]>.self, from: Captures.data(file)).page()
        #expect(page.items.count == items)
        #expect(page.reportedTotalCount == reportedTotal)
        #expect(!page.hasMore)
        for aweme in page.items {
            #expect(aweme.statistics?.awemeID == aweme.awemeID)
            #expect(aweme.awemeID.count == 19)
            if let music = aweme.music, let idStr = music.idStr { #expect(music.id == idStr) }
            #expect(!(aweme.video?.playAddr?.urlList.isEmpty ?? true))
        }
    }

    @Test func knownAweme() throws {
        let awemes = try decoder.decode(APIResponse<[Aweme]>.self, from: Captures.data("awemes.json")).value()
        let first = awemes[0]
        #expect(first.awemeID == "6568644489458486535")
        #expect(first.authorUserID == "97795069353")
        #expect(first.desc == "最后生无可恋的囧哥")
        #expect(first.statistics?.diggCount == 70451)
        #expect(first.music?.id == "6565308767775394568")
        #expect(first.video?.duration == 10170)
        #expect(first.music?.duration == 10)
        #expect(try first.music?.decodedExtra()?["has_edited"] == .integer(0))
        #expect(awemes.contains { $0.chaList.isEmpty })
    }

    @Test func comments() throws {
        let comments = try decoder.decode(APIResponse<[Comment]>.self, from: Captures.data("comments.json")).value()
        #expect(comments.count == 3)
        #expect(comments.allSatisfy { $0.userType == .user && $0.user != nil && $0.visitor == nil })
        #expect(comments[0].user?.nickname == "殇璃茉心♚")
        #expect(comments[0].user?.videoIcon?.urlList == [])
    }

    @Test func groupChats() throws {
        let chats = try decoder.decode(APIResponse<[GroupChat]>.self, from: Captures.data("groupchats.json")).value()
        #expect(chats.map(\.msgType) == [.system, .image, .text, .image])
        #expect(chats[1].picOriginal?.width == 3072)
        #expect(chats[2].msgContent == "[可爱][可爱][可爱]")
    }

    @Test func emotions() throws {
        let table = try decoder.decode(EmotionTable.self, from: Captures.data("emotion.json"))
        #expect(table.dict.count == 114)
        #expect(table.array.map(\.count) == [20, 20, 20, 20, 20, 14])
        #expect(table.dict["kuye"] == "[枯叶]")
    }
}
