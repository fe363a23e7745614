import DouyinAPI
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// `pages(...)` over the backend, and the fallback store standing in for a dead one.
@Suite struct PagingAndFallbackTests {
    @Test func pagesFollowHasMoreToTheEnd() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        var numbers: [Int] = []
        var ids: [String] = []
        for try await page in client.pages(.awemePost(uid: Known.uid)) {
            numbers.append(page.number)
            ids += page.items.map(\.awemeID)
        }
        // feed-large.json: 150 items in pages of 21 → 7 full pages and one of 3.
        #expect(numbers == Array(0...7))
        #expect(ids.count == 150)
        #expect(Set(ids).count == 150)
        #expect(try backend.requests(to: "aweme/post").map { $0.queryFields["page"] } == (0...7).map { String($0) })
    }

    @Test func anEmptyPageStopsEvenWhenHasMoreSaysOne() async throws {
        let backend = try await LocalBackend.start()
        try backend.lieAboutHasMore()
        let client = makeClient(backend)
        var pages = 0
        for try await page in client.pages(.awemeFavorite(uid: Known.uid, size: 2)) {
            pages += 1
            #expect(page.hasMore)
        }
        // 5 favorites: pages of 2, 2, 1, then an empty one that ends it.
        #expect(pages == 3)
        #expect(try backend.requests(to: "aweme/favorite").count == 4)
    }

    @Test func thePageLimitStopsEarly() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        var pages: [APIPage<Aweme>] = []
        for try await page in client.pages(.awemePost(uid: Known.uid), from: 2, limit: 2) {
            pages.append(page)
        }
        #expect(pages.map(\.number) == [2, 3])
        #expect(pages.allSatisfy { $0.hasMore })
        #expect(try backend.requests(to: "aweme/post").count == 2)
    }

    @Test func aFailingPageEndsTheSequenceWithItsError() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend) { $0.retry.maximumRetries = 0 }
        try backend.respond(status: 200, body: #"{"code":0,"data":[{"cid":"1","text":"a"}],"has_more":1}"#)
        try backend.respond(status: 200, body: #"{"code":7,"message":"rate limited"}"#)
        var iterator = client.pages(.commentList(awemeID: Known.awemeID)).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.items.map(\.cid) == ["1"])
        let error = await apiError { try await iterator.next() }
        guard case .server(.commentList, 7, "rate limited") = error else {
            Issue.record("expected code 7, got \(String(describing: error))")
            return
        }
        let after = try await iterator.next()
        #expect(after == nil)
    }

    /// A fallback folder with the package's fixtures under the `douyinkit api --fallback` names.
    static func fallbackFolder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        for (file, fixture) in [("user.json", "user.json"), ("awemes.json", "feed.json"), ("favorites.json", "feed-page2.json"),
                                ("comments.json", "comments.json"), ("groupchats.json", "groupchats.json")] {
            try Fixtures.data("api/\(fixture)").write(to: folder.appending(file))
        }
        return folder
    }

    @Test func everyGETFallsBackWhenTheServerIsGoneAndLaterPagesAreEmpty() async throws {
        let folder = try Self.fallbackFolder()
        defer { folder.remove() }
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let base = closed.baseURL
        var configuration = APIClient.Configuration()
        configuration.fallback = FallbackStore(directory: folder.url)
        configuration.retry.maximumRetries = 0
        let client = APIClient(baseURL: base, configuration: configuration, clock: TestClock())

        let user = try await client.send(.user(uid: Known.uid))
        #expect(user.source == .fallback)
        #expect(user.value.nickname == "Lin Xiao")
        guard case .transport = user.fallbackReason else {
            Issue.record("expected a transport reason, got \(String(describing: user.fallbackReason))")
            return
        }
        let posts = try await client.send(.awemePost(uid: Known.uid))
        #expect(posts.source == .fallback)
        #expect(posts.value.count == 4)
        let favorites = try await client.send(.awemeFavorite(uid: Known.uid))
        #expect(favorites.value.map(\.awemeID) == ["6600000000000000005"])
        let comments = try await client.send(.commentList(awemeID: Known.awemeID))
        #expect(comments.value.count == 3)
        let chats = try await client.send(.groupChatList())
        #expect(chats.value.count == 4)

        for later in [1, 5] {
            let page = try await client.send(.awemePost(uid: Known.uid, page: later))
            #expect(page.value.isEmpty)
            #expect(!page.hasMore)
            #expect(page.source == .fallback)
        }
        // Paging from the fallback ends: page 0's items, then an empty page.
        var pages: [Int] = []
        for try await page in client.pages(.awemePost(uid: Known.uid)) { pages.append(page.items.count) }
        #expect(pages == [4])
        #expect(client.statistics.fallbackAnswers >= 9)

        // Never for a POST.
        let post = await apiError { try await client.send(.groupChatText(udid: "u", text: "x")) }
        guard case .transport = post else {
            Issue.record("a POST must not fall back: \(String(describing: post))")
            return
        }
    }

    @Test func fallbackCovers5xxAndBadBodiesButNot4xxOrServerCodes() async throws {
        let folder = try Self.fallbackFolder()
        defer { folder.remove() }
        let backend = try await LocalBackend.start()
        let client = makeClient(backend) {
            $0.fallback = FallbackStore(directory: folder.url)
            $0.retry.maximumRetries = 0
        }
        try backend.fail(status: 500)
        #expect(try await client.send(.user(uid: Known.uid)).source == .fallback)
        try backend.answerHTML()
        #expect(try await client.send(.user(uid: Known.uid)).source == .fallback)
        try backend.respond(status: 200, body: "{\"code\":0,\"data\":{}}")
        #expect(try await client.send(.user(uid: Known.uid)).source == .fallback)
        try backend.fail(status: 404)
        let notFound = await apiError { try await client.send(.user(uid: Known.uid)) }
        guard case .http(_, 404, _) = notFound else {
            Issue.record("a 404 must not fall back: \(String(describing: notFound))")
            return
        }
        let serverCode = await apiError { try await client.send(.user(uid: "404404")) }
        guard case .server(_, 2001, _) = serverCode else {
            Issue.record("code ≠ 0 must not fall back: \(String(describing: serverCode))")
            return
        }
        #expect(try await client.send(.user(uid: Known.uid)).source == .network)
    }

    @Test func aMissingOrBrokenFallbackFileLeavesTheNetworkError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Data("{not json".utf8).write(to: folder.appending("user.json"))
        let backend = try await LocalBackend.start()
        let client = makeClient(backend) {
            $0.fallback = FallbackStore(directory: folder.url)
            $0.retry.maximumRetries = 0
        }
        try backend.fail(next: 2, status: 503)
        let broken = await apiError { try await client.send(.user(uid: Known.uid)) }
        guard case .http(_, 503, _) = broken else {
            Issue.record("expected the 503, got \(String(describing: broken))")
            return
        }
        let missing = await apiError { try await client.send(.groupChatList()) }
        guard case .http(_, 503, _) = missing else {
            Issue.record("expected the 503, got \(String(describing: missing))")
            return
        }
    }
}
