import DouyinAPI
import DouyinModels
import DouyinSupport
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Issue 26 §2: the app's own URLSession or URLSessionConfiguration, and a hook that adapts
/// every attempt's URLRequest.
@Suite("Bring your own session; adapt each request")
struct SessionAndAdapterTests {
    @Test("An app's URLSessionConfiguration applies (its extra headers reach the server) and the client's checks still hold")
    func anAppsSessionConfiguration() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpAdditionalHeaders = ["X-App": "kept"]
        var configuration = APIClient.Configuration()
        configuration.maximumBodySize = 20_000
        let client = APIClient(baseURL: backend.baseURL, configuration: configuration, sessionConfiguration: sessionConfiguration)

        let user = try await client.send(.user(uid: Known.uid))
        #expect(user.value.uid == Known.uid)
        #expect(try backend.requests(to: "user").first?.header("X-App") == "kept")
        // The body limit still stops a 21-item page of awemes as it arrives.
        let error = await apiError { try await client.send(.awemePost(uid: Known.uid)) }
        #expect(error == .bodyTooLarge(endpoint: .awemePost, limit: 20_000))
    }

    @Test("On the app's own URLSession: calls work, the body limit and status checks hold, the session outlives the client")
    func anAppsSession() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var configuration = APIClient.Configuration()
        configuration.maximumBodySize = 20_000
        configuration.retry.maximumRetries = 0
        do {
            let client = APIClient(baseURL: backend.baseURL, configuration: configuration, session: session)
            let user = try await client.send(.user(uid: Known.uid))
            #expect(user.value.uid == Known.uid)
            #expect(user.response?.status == 200)
            let tooLarge = await apiError { try await client.send(.awemePost(uid: Known.uid)) }
            #expect(tooLarge == .bodyTooLarge(endpoint: .awemePost, limit: 20_000))
            try backend.fail(status: 503)
            let unavailable = await apiError { try await client.send(.user(uid: Known.uid)) }
            guard case .http(.user, 503, _)? = unavailable else {
                Issue.record("expected HTTP 503, got \(String(describing: unavailable))")
                return
            }
        }
        // The client is gone; the app's session is still usable (the client did not invalidate it).
        let again = APIClient(baseURL: backend.baseURL, session: session)
        #expect(try await again.value(.user(uid: Known.uid)).uid == Known.uid)
    }

    @Test("The adapter runs for every attempt, after the configured headers, and what it sets reaches the server")
    func theAdapterSignsEveryAttempt() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let clock = TestClock()
        let counter = LockedBox(0)
        let client = makeClient(backend, clock: clock) {
            $0.headers = ["X-Team": "feed"]
            $0.adaptRequest = { request, endpoint in
                var signed = request
                let n = counter.withLock { count -> Int in
                    count += 1
                    return count
                }
                signed.setValue("\(endpoint.path)#\(n) team=\(request.value(forHTTPHeaderField: "X-Team") ?? "-")", forHTTPHeaderField: "X-Signature")
                return signed
            }
        }
        // One 503, then the normal answer: two attempts, two signatures.
        try backend.fail(status: 503, retryAfter: "0")
        let user = try await client.send(.user(uid: Known.uid))
        #expect(user.attempts == 2)
        #expect(try backend.requests(to: "user").map { $0.header("X-Signature") } == ["user#1 team=feed", "user#2 team=feed"])
    }

    @Test("An adapter that throws ends the call with adaptationFailed and nothing is sent")
    func aThrowingAdapter() async throws {
        struct NoKey: Error, CustomStringConvertible { var description: String { "no signing key" } }
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = makeClient(backend) { $0.adaptRequest = { _, _ in throw NoKey() } }
        let error = await apiError { try await client.send(.user(uid: Known.uid)) }
        #expect(error == .adaptationFailed(endpoint: .user, reason: "no signing key"))
        #expect(try backend.requests().isEmpty)
    }
}
