import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit api")
struct APIVerbTests {
    private func json(_ result: Tool.Result) -> Any? {
        try? JSONSerialization.jsonObject(with: result.output, options: [.fragmentsAllowed])
    }

    @Test func userPrintsTheDecodedDataWithSourceNetwork() async throws {
        let backend = try await LocalBackend.start()
        let result = try await Tool.run(["api", "user", "uid=97795069001", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("source=network"))
        let user = json(result) as? [String: Any]
        #expect(user?["uid"] as? String == "97795069001")
        #expect(user?["nickname"] as? String == "Lin Xiao")
    }

    @Test func pagesFollowHasMoreAndPrintOneArray() async throws {
        let backend = try await LocalBackend.start()
        let result = try await Tool.run(["api", "aweme/post", "uid=97795069001", "page=5", "--pages", "5", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        // From page 5: pages 5 and 6 are full, 7 holds the last 3 and has_more 0.
        #expect(result.stderr.contains("pages=3"))
        #expect((json(result) as? [Any])?.count == 21 + 21 + 3)
        let limited = try await Tool.run(["api", "aweme/post", "uid=97795069001", "--pages", "2", "--base", backend.baseURL.absoluteString])
        #expect(limited.stderr.contains("pages=2"))
        #expect((json(limited) as? [Any])?.count == 42)
    }

    @Test func serverCodeExitsTwoWithCodeAndMessage() async throws {
        let backend = try await LocalBackend.start()
        let result = try await Tool.run(["api", "user", "uid=1", "--base", backend.baseURL.absoluteString])
        #expect(result.status == 2)
        #expect(result.stderr.contains("code=2001 message=user 1 not found"))
        #expect(result.stdout.isEmpty)
    }

    @Test func httpAndTransportErrorsExitOne() async throws {
        let backend = try await LocalBackend.start()
        try backend.fail(next: 3, status: 404)
        let notFound = try await Tool.run(["api", "user", "uid=97795069001", "--base", backend.baseURL.absoluteString])
        #expect(notFound.status == 1)
        #expect(notFound.stderr.contains("HTTP 404"))
        backend.stop()
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let base = closed.baseURL.absoluteString
        let refused = try await Tool.run(["api", "groupchat/text", "udid=u", "text=x", "--base", base])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("connection refused"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    @Test func fallbackAnswersAGETWhenTheServerIsGone() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Fixtures.data("api/feed.json").write(to: folder.appending("awemes.json"))
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let base = closed.baseURL.absoluteString
        let result = try await Tool.run(["api", "aweme/post", "uid=97795069001", "--base", base, "--fallback", folder.url.path, "--pages", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("source=fallback"))
        #expect(result.stderr.contains("pages=1"))
        #expect((json(result) as? [Any])?.count == 4)
        let later = try await Tool.run(["api", "aweme/post", "uid=97795069001", "page=1", "--base", base, "--fallback", folder.url.path])
        #expect(later.status == 0)
        #expect((json(later) as? [Any])?.count == 0)
    }

    @Test func postDeleteAndImageUpload() async throws {
        let backend = try await LocalBackend.start()
        let base = backend.baseURL.absoluteString
        let posted = try await Tool.run(["api", "comment/post", "aweme_id=6600000000000000001", "udid=abc", "text=a&b=c+d", "--base", base])
        #expect(posted.status == 0, "\(posted.stderr)")
        let comment = json(posted) as? [String: Any]
        #expect(comment?["text"] as? String == "a&b=c+d")
        let cid = try #require(comment?["cid"] as? String)
        let deleted = try await Tool.run(["api", "comment/delete", "cid=\(cid)", "udid=abc", "--base", base])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "null")
        #expect(try backend.requests(to: "comment/delete").first?.queryFields == ["cid": cid, "udid": "abc"])

        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let gif = Data("GIF89a".utf8) + Data([4, 0, 3, 0, 0, 0, 0])
        try gif.write(to: folder.appending("pic.gif"))
        let image = try await Tool.run(["api", "groupchat/image", "udid=abc", "--file", folder.appending("pic.gif").path, "--base", base])
        #expect(image.status == 0, "\(image.stderr)")
        let message = json(image) as? [String: Any]
        #expect(message?["msg_type"] as? String == "image")
        #expect((message?["pic_original"] as? [String: Any])?["type"] as? String == "image/gif")
        let noFile = try await Tool.run(["api", "groupchat/image", "udid=abc", "--base", base])
        #expect(noFile.status == 2)
    }
}
