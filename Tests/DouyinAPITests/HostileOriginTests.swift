import DouyinAPI
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Origins that lie (issue 21, items 13–18): bodies without end, a deadline that a trickle
/// cannot stretch, ambiguous framing, a POST redirected, a server that repeats its pages, a base
/// URL with a query. Each test failed on the client before the fix (the reason is beside it).
@Suite struct HostileOriginTests {
    private func client(_ base: URL, configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient {
        var configuration = APIClient.Configuration()
        configuration.retry.maximumRetries = 0
        configuration.maximumBodySize = 1 << 20
        // A deadline far from any test's work: under Thread Sanitizer, with the whole suite
        // keeping the task pool busy, a two-hop 307 exchange once took longer than the default
        // 15 s. The deadline tests set their own (1 s).
        configuration.timeout = .seconds(120)
        configure(&configuration)
        return APIClient(baseURL: base, configuration: configuration, clock: TestClock())
    }

    // Item 13. Before: the whole body was buffered (64 MB here, endless in the field) and then
    // reported as not JSON. The origin stops at 64 MB so the old client failed, not the machine.
    @Test(arguments: ["length/67108864", "chunked/67108864", "gzip/67108864"])
    func aBodyOverTheLimitEndsWithBodyTooLarge(behaviour: String) async throws {
        let origin = try await HostileOrigin.start()
        let error = await apiError { try await client(origin.base(behaviour)).send(.user(uid: "1")) }
        guard case .bodyTooLarge(.user, let limit) = error else {
            Issue.record("\(behaviour): expected bodyTooLarge, got \(String(describing: error))")
            return
        }
        #expect(limit == 1 << 20)
    }

    @Test func aBodyWithinTheLimitIsAccepted() async throws {
        let origin = try await HostileOrigin.start()
        // 64 KB of spaces: under the limit, so the failure is the JSON's, not the size's.
        let error = await apiError { try await client(origin.base("chunked/65536")).send(.user(uid: "1")) }
        guard case .notJSON = error else {
            Issue.record("expected notJSON, got \(String(describing: error))")
            return
        }
    }

    // Item 14. Before: each byte (or 102) restarted FoundationNetworking's idle timer, so the
    // exchange ran until the origin gave up after 60 s and ended as a lost connection.
    @Test(arguments: ["trickle/200", "processing/200"])
    func aSlowAnswerEndsAtTheDeadline(behaviour: String) async throws {
        let origin = try await HostileOrigin.start()
        let error = await apiError { try await client(origin.base(behaviour)) { $0.timeout = .seconds(1) }.send(.user(uid: "1")) }
        guard case .transport(.user, let urlError) = error else {
            Issue.record("\(behaviour): expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .timedOut)
    }

    // Item 16. Before: all four answered an empty list (libcurl read 103 or 42 bytes).
    @Test(arguments: ["two", "list", "plus", "huge"])
    func ambiguousContentLengthIsMalformed(kind: String) async throws {
        let origin = try await HostileOrigin.start()
        let error = await apiError { try await client(origin.base("cl/\(kind)")).send(.commentList(awemeID: "1")) }
        guard case .malformedResponse(.commentList, let reason) = error else {
            Issue.record("\(kind): expected malformedResponse, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Content-Length"))
    }

    @Test func aSingleContentLengthIsAccepted() async throws {
        let origin = try await HostileOrigin.start()
        let comments = try await client(origin.base("cl/good")).value(.commentList(awemeID: "1"))
        #expect(comments.isEmpty)
    }

    // Item 17. Before: URLSession followed with the method kept and `Content-Length: 0`.
    @Test(arguments: [307, 308])
    func aRedirectedPostIsSentAgainWithItsBody(status: Int) async throws {
        let origin = try await HostileOrigin.start()
        let visitor = try await client(origin.base("redirect/\(status)")).value(.visitorCreate(udid: "u 1+2"))
        #expect(visitor.uid == "v1")
        let received = try origin.recorded()
        #expect(received.count == 1)
        #expect(received.first?.method == "POST")
        #expect(received.first?.path == "/record/visitor/create")
        #expect(received.first?.formFields == ["udid": "u 1+2"])
        #expect(received.first?.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    // Item 15. Before: 100 requests, the same two items 100 times, no error.
    @Test func aRepeatedPageEndsPagingWithATypedError() async throws {
        let origin = try await HostileOrigin.start()
        var pages: [Int] = []
        let error = await apiError {
            for try await page in client(origin.base("repeat")).pages(.awemePost(uid: "1"), limit: 100_000) {
                pages.append(page.number)
            }
        }
        #expect(pages == [0])
        guard case .repeatedPage(.awemePost, 1, 0) = error else {
            Issue.record("expected repeatedPage 1 of 0, got \(String(describing: error))")
            return
        }
    }

    // Item 15. Before: `page + 1` trapped (SIGILL) after the first page.
    @Test func hasMoreAfterPageIntMaxIsATypedErrorNotATrap() async throws {
        let origin = try await HostileOrigin.start()
        var pages: [Int] = []
        let error = await apiError {
            for try await page in client(origin.base("repeat")).pages(.awemePost(uid: "1"), from: Int.max, limit: 5) {
                pages.append(page.number)
            }
        }
        #expect(pages == [Int.max])
        guard case .invalidRequest(.awemePost, _) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
    }
}
