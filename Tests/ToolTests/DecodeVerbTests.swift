import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit decode")
struct DecodeVerbTests {
    @Test(arguments: [
        ("awemes", "api/feed.json"), ("user", "api/user.json"), ("comments", "api/comments.json"),
        ("groupchats", "api/groupchats.json"), ("emotions", "api/emotions.json"),
    ])
    func reencodesWithTheAPIsKeys(kind: String, fixture: String) async throws {
        let result = try await Tool.run(["decode", kind, Fixtures.url(fixture).path])
        #expect(result.status == 0, "\(result.stderr)")
        let original = try JSONSerialization.jsonObject(with: Fixtures.data(fixture)) as? [String: Any]
        let printed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(Set(printed?.keys ?? [:].keys) == Set(original?.keys ?? [:].keys))
    }

    @Test func printsSnakeCaseAndEpochSeconds() async throws {
        let result = try await Tool.run(["decode", "awemes", Fixtures.url("api/feed.json").path])
        #expect(result.stdout.contains(#""author_user_id" : "97795069001""#))
        #expect(result.stdout.contains(#""create_time" : 1530003600"#))
        #expect(!result.stdout.contains("awemeID"))
    }

    @Test func badFileExitsOneWithThePath() async throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("api/feed.json")) as? [String: Any])
        var items = try #require(root["data"] as? [[String: Any]])
        var statistics = try #require(items[1]["statistics"] as? [String: Any])
        statistics["share_count"] = "lots"
        items[1]["statistics"] = statistics
        root["data"] = items
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: root).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let result = try await Tool.run(["decode", "awemes", file.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("data[1].statistics.share_count"))
        #expect(result.stdout.isEmpty)
    }

    @Test("Regression: undecodable JSON errors gave no byte offset")
    func syntaxErrorNamesTheByteOffset() async throws {
        let whole = try Fixtures.data("api/feed.json")
        // A doubled comma inside the first item, at a known offset on a known line.
        let comma = try #require(whole.range(of: Data(#""desc":"#.utf8))).lowerBound
        var broken = whole
        broken.insert(UInt8(ascii: ","), at: comma)
        let line = whole[..<comma].filter { $0 == 0x0A }.count + 1
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        for (bytes, expected) in [
            (broken, "not valid JSON at byte \(comma) (line \(line), "),
            (whole.prefix(1000), "not valid JSON at byte 1000 "),
        ] {
            try bytes.write(to: file)
            let result = try await Tool.run(["decode", "awemes", file.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func missingFileAndUnknownKind() async throws {
        #expect(try await Tool.run(["decode", "awemes", "/nonexistent/feed.json"]).status == 1)
        #expect(try await Tool.run(["decode", "videos", Fixtures.url("api/feed.json").path]).status == 2)
        #expect(try await Tool.run(["nonsense"]).status == 2)
    }

    /// The demo reads its data from the tool's resource bundle, not from the checkout or the
    /// working directory: a copy of the products, run in an empty folder, with one word of the
    /// copied bundle's feed changed (same length: the tags are UTF-16 ranges of the text),
    /// prints the changed word (a tool reading the source tree's Fixtures prints the original).
    @Test func demoPrintsTheFeedSummary() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let products = folder.appending("products"), elsewhere = folder.appending("elsewhere")
        try FileManager.default.createDirectory(at: products, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let copy = try Tool.copyProducts(to: products)
        let feed = products.appendingPathComponent("DouyinKit_DouyinBackendLauncher.resources/Fixtures/api/feed.json")
        let original = try String(contentsOf: feed, encoding: .utf8)
        #expect(original.contains("morning walk"))
        try original.replacingOccurrences(of: "morning walk", with: "evening walk").write(to: feed, atomically: true, encoding: .utf8)
        let result = try await Tool.run(["demo"], in: elsewhere, executable: copy)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Lin Xiao — \"😺 evening walk #cats\""))
        #expect(result.stdout.contains("tag: #cats"))
        #expect(result.stdout.contains("5500 show track=0 key=carol:heart count=5"))
        // Piped (here: to a file), the output is the results alone, in order: no progress bar
        // redraws (they went to stdout and landed before the first header), the video section's
        // header before its passes, and a line per swipe in the feed section.
        #expect(!result.stdout.contains("\r"))
        #expect(!result.stderr.contains("\r"))
        #expect(result.stdout.hasPrefix("== Feed (Fixtures/api/feed.json)"))
        let video = result.stdout.range(of: "== Video cache")
        let firstPass = result.stdout.range(of: "  pass 1: ")
        #expect(video != nil && firstPass != nil && video!.lowerBound < firstPass!.lowerBound)
        #expect(result.stdout.contains("without preloader, swipe 1: first 100 KB after "))
        #expect(result.stdout.contains("with preloader, swipe 5: first 100 KB after "))
        // The proxy section (make test installs ffmpeg, so it must not be skipped): ffmpeg's
        // pass 1 goes to the origin, pass 2 (origin stopped) asks it nothing, and both decode
        // to the same frames as the file itself.
        _ = try TestMedia.ffmpeg()
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for stream in ["tail.mp4", "ts/index.m3u8"] {
            let first = lines.first { $0.hasPrefix("  \(stream) pass 1: ") } ?? "(no pass 1 line for \(stream))"
            let second = lines.first { $0.hasPrefix("  \(stream) pass 2 (origin stopped): ") } ?? "(no pass 2 line for \(stream))"
            #expect(first.contains("origin sent ") && !first.contains("origin sent 0 bytes"), "\(first)")
            #expect(first.hasSuffix("framemd5 = file: equal"), "\(first)")
            #expect(second.contains("origin sent 0 bytes (0 requests)"), "\(second)")
            #expect(second.contains(", 0 from origin;"), "\(second)")
            #expect(second.hasSuffix("framemd5 = pass 1: equal, = file: equal"), "\(second)")
        }
    }
}
