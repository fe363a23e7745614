import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// One replacement of a value deep inside the feed fixture, and the path the error must name.
struct Corruption: Sendable, CustomTestStringConvertible {
    let path: [String]
    let json: String
    var testDescription: String { path.joined(separator: "/") + " = " + json }
    var expectedPath: String {
        path.reduce(into: "") { text, part in
            if Int(part) != nil { text += "[\(part)]" } else { text += text.isEmpty ? part : ".\(part)" }
        }
    }
}

@Suite("Bad input is a decoding error that names the JSON path")
struct BadInputTests {
    /// The feed fixture with the value at `path` replaced by the JSON text `json`.
    func feed(replacing path: [String], withJSON json: String) throws -> Data {
        let root = try JSONSerialization.jsonObject(with: Fixtures.data("api/feed.json"))
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        func replace(_ node: Any, _ rest: ArraySlice<String>) -> Any {
            guard let head = rest.first else { return value }
            if let index = Int(head), var array = node as? [Any] {
                array[index] = replace(array[index], rest.dropFirst())
                return array
            }
            var object = node as? [String: Any] ?? [:]
            object[head] = replace(object[head] as Any, rest.dropFirst())
            return object
        }
        return try JSONSerialization.data(withJSONObject: replace(root, path[...]))
    }

    func decodingError(_ data: Data) -> DecodingError? {
        do {
            _ = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data)
            return nil
        } catch {
            return error as? DecodingError
        }
    }

    @Test(arguments: [
        Corruption(path: ["data", "3", "video", "play_addr", "url_list", "0"], json: "42"),
        Corruption(path: ["data", "0", "statistics", "digg_count"], json: #""many""#),
        Corruption(path: ["data", "1", "aweme_id"], json: "true"),
        Corruption(path: ["data", "2", "create_time"], json: #""yesterday""#),
        Corruption(path: ["data", "0", "video"], json: #""none""#),
        Corruption(path: ["data", "0", "author", "total_favorited"], json: #""many""#),
        Corruption(path: ["data", "1", "statistics", "comment_count"], json: "1.5"),
        Corruption(path: ["data", "1", "statistics", "play_count"], json: #""99999999999999999999""#),
        Corruption(path: ["data", "3", "author", "follower_count"], json: #""1e3""#),
        Corruption(path: ["data", "2", "author", "gender"], json: #""2""#),
        Corruption(path: ["data", "0", "author", "nickname"], json: #"["not", "a", "name"]"#),
        Corruption(path: ["data", "2", "cha_list"], json: #""none""#),
        Corruption(path: ["data", "0", "aweme_id"], json: "123456789012345678901234"),
    ])
    func wrongTypeNamesThePath(_ corruption: Corruption) throws {
        let error = try #require(decodingError(feed(replacing: corruption.path, withJSON: corruption.json)))
        #expect(error.jsonPath == corruption.expectedPath)
        #expect(error.summary.hasPrefix(corruption.expectedPath + ": "))
    }

    @Test func wrongTypeSaysWhatWasFound() throws {
        let error = try #require(decodingError(feed(replacing: ["data", "1", "aweme_id"], withJSON: "true")))
        #expect(error.summary.contains("found a boolean"))
    }

    @Test func missingIdentityNamesThePath() throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("api/feed.json")) as? [String: Any])
        var items = try #require(root["data"] as? [[String: Any]])
        items[2]["aweme_id"] = nil
        root["data"] = items
        let error = try #require(decodingError(JSONSerialization.data(withJSONObject: root)))
        #expect(error.jsonPath == "data[2].aweme_id")
        #expect(error.summary.contains("missing"))
    }

    @Test(arguments: [["data", "0", "aweme_id"], ["data", "1", "author", "uid"], ["data", "2", "cha_list", "0", "cid"]])
    func nullIdentityNamesThePath(_ path: [String]) throws {
        let error = try #require(decodingError(feed(replacing: path, withJSON: "null")))
        #expect(error.jsonPath == Corruption(path: path, json: "null").expectedPath)
    }

    @Test func nullOrMissingObjectsAreAbsent() throws {
        let data = try feed(replacing: ["data", "0", "video"], withJSON: "null")
        let feed = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data).value()
        #expect(feed[0].video == nil)
        #expect(feed[1].video != nil)
    }

    @Test func truncatedJSONAtEveryCutPointThrows() throws {
        let whole = try Fixtures.data("api/feed.json")
        // Every 97th cut point plus the last few bytes: all regions of the file, still quick.
        let cuts = Array(stride(from: 0, to: whole.count - 1, by: 97)) + Array((whole.count - 8)..<whole.count - 1)
        for cut in cuts {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: whole.prefix(cut))
            }
        }
    }

    @Test func garbageThrows() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let count = Int.random(in: 0..<300, using: &generator)
            let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(throws: (any Error).self) { try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: bytes) }
        }
    }
}
