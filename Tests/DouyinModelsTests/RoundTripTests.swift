import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

@Suite("Decode, encode, decode is lossless")
struct RoundTripTests {
    func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) throws {
        let first = try JSONDecoder().decode(type, from: data)
        let encoded = try JSONEncoder().encode(first)
        let second = try JSONDecoder().decode(type, from: encoded)
        #expect(first == second)
    }

    @Test func everyFixture() throws {
        try roundTrip(APIResponse<User>.self, Fixtures.data("api/user.json"))
        try roundTrip(APIResponse<[Aweme]>.self, Fixtures.data("api/feed.json"))
        try roundTrip(APIResponse<[Aweme]>.self, Fixtures.data("api/feed-large.json"))
        try roundTrip(APIResponse<[Comment]>.self, Fixtures.data("api/comments.json"))
        try roundTrip(APIResponse<[GroupChat]>.self, Fixtures.data("api/groupchats.json"))
        try roundTrip(APIResponse<[Aweme]>.self, Fixtures.data("api/error.json"))
        try roundTrip(EmotionTable.self, Fixtures.data("api/emotions.json"))
    }

    @Test(.enabled(if: Captures.available))
    func everyCapture() throws {
        try roundTrip(APIResponse<User>.self, Captures.data("user.json"))
        for file in ["awemes.json", "favorites.json", "variant/awemes.json", "variant/favorites.json"] {
            try roundTrip(APIResponse<[Aweme]>.self, Captures.data(file))
        }
        try roundTrip(APIResponse<[Comment]>.self, Captures.data("comments.json"))
        try roundTrip(APIResponse<[GroupChat]>.self, Captures.data("groupchats.json"))
        try roundTrip(EmotionTable.self, Captures.data("emotion.json"))
    }

    @Test func encodingWritesTheAPIsKeysAndForms() throws {
        let feed = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: Fixtures.data("api/feed.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(feed)) as? [String: Any])
        #expect(object["has_more"] as? Int == 1)
        #expect(object["total_count"] as? Int == 7)
        let first = try #require((object["data"] as? [[String: Any]])?.first)
        #expect(first["create_time"] as? Int == 1_530_003_600)
        #expect(first["aweme_id"] as? String == "6600000000000000001")
        #expect((first["video"] as? [String: Any])?["play_addr_lowbr"] != nil)
        #expect(first["createTime"] == nil)
    }
}
