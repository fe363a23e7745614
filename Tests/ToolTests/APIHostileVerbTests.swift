import DouyinTestSupport
import Foundation
import Testing

/// `douyinkit api` against answers and files that try to break its output or its memory
/// (issue 21, items 13, 18 and 19). Each test failed on the tool before the fix.
@Suite("douyinkit api, hostile input")
struct APIHostileVerbTests {
    // Item 19. Before: the CR/LF split the message into a forged `source=fallback` line and
    // ESC reached the terminal.
    @Test func aServerMessageIsPrintedOnOneEscapedLine() async throws {
        let backend = try await LocalBackend.start()
        try backend.respond(status: 200, body: #"{"code":7,"message":"no\r\nsource=fallback\u001b[31m\u0007"}"#)
        let result = try await Tool.run(["api", "user", "uid=1", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines == [#"code=7 message=no\r\nsource=fallback\u{1B}[31m\u{7}"#])
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\r"))
    }

    // Item 19. Before: the body excerpt of an HTTP error carried ESC and BEL raw.
    @Test func anErrorReasonWithServerTextIsEscaped() async throws {
        let backend = try await LocalBackend.start()
        try backend.respond(status: 404, body: "gone\u{1B}]0;owned\u{07} \u{9B}2J", contentType: "text/plain")
        let result = try await Tool.run(["api", "user", "uid=1", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"HTTP 404: gone\u{1B}]0;owned\u{7} \u{9B}2J"#), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
    }

    // Item 19. Before: JSONEncoder wrote the C1 control U+009B (CSI) and U+2028 as they were.
    @Test func stdoutJSONEscapesC1ControlsAndLineSeparators() async throws {
        let backend = try await LocalBackend.start()
        try backend.respond(status: 200, body: #"{"code":0,"data":{"uid":"1","nickname":"a\u009b2Jb\u2028c\u001bd"}}"#)
        let result = try await Tool.run(["api", "user", "uid=1", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 })
        let user = try JSONSerialization.jsonObject(with: result.output) as? [String: Any]
        #expect(user?["nickname"] as? String == "a\u{9B}2Jb\u{2028}c\u{1B}d")
    }

    // Item 18. Before: exit 1 with an HTTP 404 from the folder (the path went into the query),
    // or exit 0 when the server answered the folder.
    @Test func aBaseWithAQueryIsRefusedBeforeAnyRequest() async throws {
        let backend = try await LocalBackend.start()
        let result = try await Tool.run(["api", "user", "uid=97795069001", "--base", backend.baseURL.absoluteString + "?x=1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("has a query or a fragment"), "\(result.stderr)")
        #expect(try backend.requests().isEmpty)
    }

    // Item 13. Before: the file was read whole and sent (here 21 MiB; in the field 2 GiB).
    @Test func anUploadOverTheMaximumIsRefusedWithoutSending() async throws {
        let backend = try await LocalBackend.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("huge.png").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0x89, 0x50, 0x4E, 0x47])))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 21 << 20)
        try handle.close()
        let result = try await Tool.run(["api", "groupchat/image", "udid=abc", "--file", path, "--base", backend.baseURL.absoluteString])
        #expect(result.status == 1)
        #expect(result.stderr.contains("more than the limit of 20971520"), "\(result.stderr)")
        #expect(try backend.requests().isEmpty)
    }

    // Item 15. Before: 100,000 requests (the tool's memory grew with every repeated page).
    @Test func pagesAgainstARepeatingOriginStopAtTheRepeat() async throws {
        let origin = try await HostileOrigin.start()
        let result = try await Tool.run(["api", "aweme/post", "uid=1", "--pages", "100000", "--base", origin.base("repeat").absoluteString])
        #expect(result.status == 1)
        #expect(result.stderr.contains("page 1 repeats page 0"), "\(result.stderr)")
    }
}
