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
        Corruption(path: ["data", "1", "video", "bit_rate", "0", "bit_rate"], json: #""fast""#),
        Corruption(path: ["data", "2", "video", "bit_rate"], json: #""oops""#),
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

    @Test func bitRateAsADigitStringIsReadAndWrittenBackAsANumber() throws {
        let data = try feed(replacing: ["data", "3", "video", "bit_rate", "0", "bit_rate"], withJSON: #""1530000""#)
        let awemes = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data).value()
        #expect(awemes[3].video?.bitRate == [BitRate(bitRate: 1_530_000, gearName: "normal_720", qualityType: 1)])
        #expect(awemes[0].video?.bitRate?.first?.bitRate == 1_000_001)
        let written = String(decoding: try JSONEncoder().encode(awemes[3].video), as: UTF8.self)
        #expect(written.contains(#""bit_rate":[{"#) && written.contains(#""bit_rate":1530000"#))
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
        var generator = SeededRandom(seed: 200)
        for _ in 0..<200 {
            let bytes = Data(generator.bytes(Int.random(in: 0..<300, using: &generator)))
            #expect(throws: (any Error).self, "\(generator)") { try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: bytes) }
        }
    }

    func summary(_ data: Data) -> String? {
        do {
            _ = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data)
            return nil
        } catch {
            return (error as? DecodingError)?.summary(decoding: data)
        }
    }

    @Test("Regression: undecodable JSON gave no byte offset; a cut file names the byte where it ends")
    func truncatedJSONNamesTheByteWhereItEnds() throws {
        let whole = try Fixtures.data("api/feed.json")
        for cut in stride(from: 1, to: whole.count - 2, by: 397) {
            let text = try #require(summary(whole.prefix(cut)))
            #expect(text.hasPrefix("not valid JSON at byte \(cut) ("), "\(text)")
            #expect(text.hasSuffix("the data ends too early"))
        }
    }

    @Test func syntaxErrorNamesByteLineAndColumn() throws {
        let text = "{\"code\": 0,\n  \"data\": [1,, 2]}"
        #expect(summary(Data(text.utf8)) == #"not valid JSON at byte 25 (line 2, column 14): unexpected ",""#)
        // A well-formed document with a wrong type still names its JSON path, not a byte.
        #expect(summary(Data(#"{"code": "zero"}"#.utf8))?.hasPrefix("code: ") == true)
    }

    @Test func everySyntaxErrorOfMutatedJSONNamesAByte() throws {
        let whole = [UInt8](try Fixtures.data("api/comments.json"))
        let ascii = whole.indices.filter { whole[$0] < 0x80 }
        let replacements = Array("{}[],:\"0a \\-.eE".utf8)
        var generator = SeededRandom(seed: 9)
        var syntaxErrors = 0
        for _ in 0..<200 {
            var bytes = whole
            bytes[ascii.randomElement(using: &generator)!] = replacements.randomElement(using: &generator)!
            let data = Data(bytes)
            do {
                _ = try JSONDecoder().decode(APIResponse<[Comment]>.self, from: data)
            } catch let error as DecodingError {
                // Foundation's syntax errors are dataCorrupted at the root; each must name a byte.
                guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty else { continue }
                syntaxErrors += 1
                #expect(error.summary(decoding: data).hasPrefix("not valid JSON at byte "), "\(generator): \(error.summary(decoding: data))")
            }
        }
        #expect(syntaxErrors > 50, "\(generator)")
    }
}
