import DouyinAPI
import DouyinModels
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// Issue 26 §2: endpoints beyond the 12 known, the HTTP answer beside the value, upload
/// progress, results that may be ignored.
@Suite("Open endpoints, response metadata, upload progress")
struct OpenRequestTests {
    @Test func anEndpointTheClientDoesNotKnowIsSentAndDecoded() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try await backendAuth(backend, ["enabled": true])
        // `auth/token` is none of the 12: a POST with a Decodable of the caller's own.
        let grant = try await makeClient(backend).value(.token)
        #expect(grant.token == "token-1")
        let sent = try #require(try backend.requests(to: "auth/token").first)
        #expect(sent.method == "POST")
    }

    @Test("Douyin's own API: an open endpoint whose answer decodes whole as DouyinAppResponse")
    func douyinsOwnEnvelopeWhole() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let body = String(decoding: try Fixtures.data("api/douyin-share-page-awemes.json"), as: UTF8.self)
        try backend.respond(status: 200, body: body, path: "/douyin/aweme/v1/web/aweme/post/")
        let request = APIRequest<DouyinAppResponse>(endpoint: Endpoint(path: "aweme/v1/web/aweme/post/"),
                                                    parameters: [("sec_user_id", "MS4w"), ("max_cursor", "0")], decoding: .whole)
        let feed = try await makeClient(backend).value(request).checked()
        #expect(feed.awemeList?.count == 2)
        #expect(feed.nextCursor == 1_690_000_000_000)
        #expect(try backend.requests(to: "aweme/v1/web/aweme/post/").first?.queryFields["max_cursor"] == "0")
    }

    @Test func aKnownPathNamedOpenlyIsTheKnownEndpoint() throws {
        #expect(Endpoint(path: "user", method: .get) == .user)
        #expect(Endpoint(path: "/comment/list", method: .get, defaultPageSize: 20) == .commentList)
        #expect(Endpoint(rawValue: "comment/list") == .commentList)
        #expect(Endpoint(rawValue: "aweme/v1/web/aweme/post/") == nil)
        #expect(Endpoint.allCases.count == 12)
        #expect(Endpoint(path: "aweme/v1/web/aweme/post/").method == .get)
        #expect(HTTPMethod.put.sendsBody && !HTTPMethod.delete.sendsBody)
    }

    @Test func anOpenPagedRequestPagesLikeAKnownOne() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let request = APIRequest<[Aweme]>(endpoint: Endpoint(path: "aweme/post", method: .get), parameters: [("uid", Known.uid), ("page", "0"), ("size", "5")])
        var count = 0
        for try await page in makeClient(backend).pages(request, limit: 2) { count += page.items.count }
        #expect(count == 10)
        #expect(try backend.requests(to: "aweme/post").map { $0.queryFields["page"] } == ["0", "1"])
    }

    @Test("The result carries the HTTP status and headers; the fallback's carries none")
    func responseMetadata() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let result = try await makeClient(backend).send(.user(uid: Known.uid))
        let response = try #require(result.response)
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        #expect(response.header("Server")?.hasPrefix("douyin-backend") == true)
        #expect(response.url?.path == "/douyin/user")
    }

    @Test("A multipart upload reports its progress, up to every byte of the body, against the backend")
    func uploadProgress() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        // A PNG header then 3 MB: large enough to go out in many pieces.
        let image = tinyPNG + Data(repeating: 0x5A, count: 3 << 20)
        let reports = LockedBox([UploadProgress]())
        let message = try await makeClient(backend).send(.groupChatImage(udid: Known.fixtureUDID, image: image)) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(message.value.picOriginal?.width == 5)
        let seen = reports.withLock { $0 }
        let last = try #require(seen.last)
        let body = try #require(try backend.requests(to: "groupchat/image").first).bodyData
        #expect(last.totalBytes == Int64(body.count))
        #expect(last.bytesSent == last.totalBytes)
        #expect(last.fractionCompleted == 1)
        #expect(seen.count > 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
    }

    @Test("A result that is optional to use can be ignored without a warning (the build runs with -warnings-as-errors)")
    func resultsMayBeIgnored() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend)
        try await client.send(.groupChatText(udid: Known.fixtureUDID, text: "hi"))
        try await client.value(.groupChatText(udid: Known.fixtureUDID, text: "again"))
        #expect(try backend.requests(to: "groupchat/text").count == 2)
    }
}
