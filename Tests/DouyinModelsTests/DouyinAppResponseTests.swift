import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Issue 26 §2: Douyin's own envelope decodes whole with a model of its own, beside `APIResponse`.
@Suite("DouyinAppResponse: Douyin's own envelope, whole")
struct DouyinAppResponseTests {
    let decoder = JSONDecoder()

    /// Every JSON file of a folder (recursively), by path relative to it.
    static func jsonFiles(in folder: URL) -> [(name: String, data: Data)] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.compactMap { url in
            (try? Data(contentsOf: url)).map { (String(url.path.dropFirst(folder.path.count + 1)), $0) }
        }
    }

    /// Decodes `data` whole with the envelope its top-level keys call for, then checks that
    /// encoding the model again writes back every top-level key the file had (none was
    /// dropped) and the same number of items. Returns which envelope it was, or `nil` for a
    /// file that is no envelope (the emotion tables).
    func decodeWhole(_ name: String, _ data: Data) throws -> String? {
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
        let encoded: Data
        let kind: String
        if raw["status_code"] != nil {
            let response = try decoder.decode(DouyinAppResponse.self, from: data)
            #expect((raw["aweme_list"] as? [Any])?.count == response.awemeList?.count, "\(name)")
            #expect((raw["comments"] as? [Any])?.count == response.comments?.count, "\(name)")
            #expect((raw["user_info"] == nil) == (response.userInfo == nil), "\(name)")
            encoded = try JSONEncoder().encode(response)
            kind = "DouyinAppResponse"
        } else if raw["code"] != nil {
            // The demo backend's envelope, its data typed by what the items are.
            let items = (raw["data"] as? [[String: Any]]) ?? []
            let object = raw["data"] as? [String: Any]
            if items.first?["aweme_id"] != nil {
                encoded = try JSONEncoder().encode(decoder.decode(APIResponse<[Aweme]>.self, from: data))
            } else if items.first?["cid"] != nil {
                encoded = try JSONEncoder().encode(decoder.decode(APIResponse<[Comment]>.self, from: data))
            } else if items.first?["msg_type"] != nil {
                encoded = try JSONEncoder().encode(decoder.decode(APIResponse<[GroupChat]>.self, from: data))
            } else if object?["uid"] != nil {
                encoded = try JSONEncoder().encode(decoder.decode(APIResponse<User>.self, from: data))
            } else {
                encoded = try JSONEncoder().encode(decoder.decode(APIResponse<JSONValue>.self, from: data))
            }
            kind = "APIResponse"
        } else {
            return nil
        }
        let again = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        // `null` values are written back as absent: compare the keys that carry a value.
        let present = Set(raw.filter { !($0.value is NSNull) }.keys)
        #expect(Set(again.keys) == present, "\(name): keys dropped or added")
        return kind
    }

    @Test("Every envelope in the package's Fixtures/api decodes whole, Douyin's four with DouyinAppResponse")
    func everyFixtureDecodesWhole() throws {
        var kinds: [String: String] = [:]
        for (name, data) in Self.jsonFiles(in: Fixtures.url("api")) {
            kinds[name] = try decodeWhole(name, data) ?? "none"
        }
        #expect(kinds.filter { $0.value == "DouyinAppResponse" }.keys.sorted() == [
            "douyin-share-page-awemes.json", "douyin-share-page-user.json", "douyin-web-comments.json", "tiktok-comments.json",
        ])
        #expect(kinds.filter { $0.value == "none" }.keys.sorted() == ["emotions.json"])
    }

    @Test("Every captured response decodes whole (they are the demo's envelope: APIResponse)",
          .enabled(if: Captures.available, "the captures folder is not on this machine"))
    func everyCaptureDecodesWhole() throws {
        let directory = try #require(Captures.directory)
        var kinds: [String: String] = [:]
        for (name, data) in Self.jsonFiles(in: directory) {
            kinds[name] = try decodeWhole(name, data) ?? "none"
        }
        #expect(kinds.count == 8)
        #expect(kinds.filter { $0.value == "none" }.keys.sorted() == ["emotion.json"])
    }

    @Test func theShareFeedsValuesAndCursor() throws {
        let feed = try decoder.decode(DouyinAppResponse.self, from: Fixtures.data("api/douyin-share-page-awemes.json")).checked()
        #expect(feed.awemeList?.map(\.awemeID) == ["7200000000000000001", "7200000000000000002"])
        #expect(feed.hasMore == true)
        #expect(feed.maxCursor == 1_690_000_000_000)
        #expect(feed.nextCursor == 1_690_000_000_000)
        #expect(feed.extra?["logid"] == .string("20230722000000000000000000000000"))
        let comments = try decoder.decode(DouyinAppResponse.self, from: Fixtures.data("api/douyin-web-comments.json"))
        #expect(comments.hasMore == true)
        #expect(comments.nextCursor == 2)
        #expect(comments.total == 57)
    }

    @Test("A failure status is a ModelsError with status_msg; cursors as strings read; a bad cursor names its path")
    func statusAndQuirks() throws {
        let refused = try decoder.decode(DouyinAppResponse.self, from: Data(#"{"status_code":2053,"status_msg":"too fast"}"#.utf8))
        #expect(throws: ModelsError.server(code: 2053, message: "too fast")) { try refused.checked() }
        let text = try decoder.decode(DouyinAppResponse.self, from: Data(#"{"status_code":0,"max_cursor":"1690000000000","has_more":0}"#.utf8))
        #expect(text.maxCursor == 1_690_000_000_000)
        #expect(text.hasMore == false)
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode(DouyinAppResponse.self, from: Data(#"{"status_code":0,"cursor":"next"}"#.utf8))
        }
        #expect(error?.jsonPath == "cursor")
    }
}
