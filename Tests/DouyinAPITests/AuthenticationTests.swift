import DouyinAPI
import DouyinModels
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Issue 26 §2: an access token renewed once for every call a burst of 401s answers.
// The time limit is a guard, not a measure (a run takes ~3 s): a client that never lets calls
// wait for one refresh would leave the tests' waits unanswered, and they fail there instead.
@Suite("Authentication: one refresh for many 401s, against the backend's expiring token", .hangGuard)
struct AuthenticationTests {
    /// An opening the test holds shut until it chooses (a refresh held while calls pile up).
    /// Any number of tasks may wait at it: a broken client that runs many refreshes must fail
    /// the test's expectations, not trip over the gate.
    final class Gate: Sendable {
        private let state = LockedBox((open: false, waiting: [CheckedContinuation<Void, Never>]()))
        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }
        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if isOpen { continuation.resume() }
            }
        }
    }

    /// The provider of the tests: the first token is one the backend never issued (so every
    /// first attempt gets 401); a refresh waits at `gate`, counts itself, then asks the
    /// backend's `auth/token` through a client of its own.
    static func authentication(_ backend: LocalBackend, gate: Gate, refreshes: LockedBox<[String]>) -> Authentication {
        let issuer = APIClient(baseURL: backend.baseURL, configuration: .patient)
        return Authentication(token: { "never-issued" }, refresh: { rejected in
            refreshes.withLock { $0.append(rejected) }
            await gate.wait()
            return try await issuer.value(.token).token
        })
    }

    @Test("200 concurrent calls rejected together: exactly 1 refresh (counted by the backend), each call sent again once")
    func twoHundredConcurrent401sMakeOneRefresh() async throws {
        // Given: the backend checks tokens, and the client starts with one it never issued.
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try await backendAuth(backend, ["enabled": true])
        let gate = Gate()
        let refreshes = LockedBox([String]())
        let client = makeClient(backend) { $0.authentication = Self.authentication(backend, gate: gate, refreshes: refreshes) }

        // When: 200 calls go out at once and all get 401; the refresh is held until all 200
        // wait for it, then 10 more calls start while it is still held.
        let first = (0..<200).map { _ in Task { try await client.send(.user(uid: Known.uid)) } }
        await client.waitForCallsAwaitingRefresh(200)
        let late = (0..<10).map { _ in Task { try await client.send(.groupChatList(page: 0, size: 1)) } }
        await client.waitForCallsAwaitingRefresh(210)
        gate.open()

        // Then: every call succeeds; a first call was sent again once if its stale token
        // reached the backend (one whose turn came after the refresh started went out once,
        // with the new token); a late call went out once, with the new token.
        var resent = 0
        for task in first {
            let attempts = try await task.value.attempts
            #expect((1...2).contains(attempts))
            resent += attempts - 1
        }
        for task in late { #expect(try await task.value.attempts == 1) }
        // The backend issued exactly one token…
        let report = try await backendAuth(backend)
        #expect(report.issued == 1)
        #expect(refreshes.withLock { $0 } == ["never-issued"])
        #expect(client.statistics.tokenRefreshes == 1)
        // …saw the stale token only on first calls, once per call sent again, never on a late
        // one, and the new token on all 210 calls.
        let calls = try backend.requests().filter { $0.path != "/douyin/auth/token" }
        let stale = calls.filter { $0.header("Authorization") == "Bearer never-issued" }
        #expect(stale.count == resent)
        #expect(report.rejected == resent)
        #expect(resent > 0)
        #expect(stale.allSatisfy { $0.path == "/douyin/user" })
        #expect(calls.filter { $0.header("Authorization") == "Bearer \(report.token ?? "")" }.count == 210)
    }

    @Test("A refresh that fails fails every waiting call with one authenticationFailed, and a late 401 starts no second refresh")
    func aFailedRefreshFailsEveryWaiter() async throws {
        // Given: the token endpoint answers 500.
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try await backendAuth(backend, ["enabled": true])
        try backend.respond(next: 5, status: 500, body: "down", path: "/douyin/auth/token")
        let gate = Gate()
        let refreshes = LockedBox([String]())
        let client = makeClient(backend) { $0.authentication = Self.authentication(backend, gate: gate, refreshes: refreshes) }

        // When: 50 calls are rejected together and the refresh fails.
        let calls = (0..<50).map { _ in Task { try await client.send(.user(uid: Known.uid)) } }
        await client.waitForCallsAwaitingRefresh(50)
        gate.open()

        // Then: each fails with the typed error; one refresh ran, one token request reached the backend.
        for task in calls {
            let error = await apiError { try await task.value }
            guard case .authenticationFailed(.user, let reason)? = error else {
                Issue.record("expected authenticationFailed, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("500"))
        }
        #expect(refreshes.withLock { $0.count } == 1)
        #expect(try backend.requests(to: "auth/token").count == 1)
    }

    @Test("A call whose new token is refused too reports the 401 (sent again once, not forever)")
    func aSecond401IsTheAnswer() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try await backendAuth(backend, ["enabled": true])
        // The refresh hands back another token the backend never issued.
        let client = makeClient(backend) {
            $0.authentication = Authentication(token: { "never-issued" }, refresh: { _ in "also-never-issued" })
        }
        let error = await apiError { try await client.send(.user(uid: Known.uid)) }
        guard case .http(.user, 401, _)? = error else {
            Issue.record("expected HTTP 401, got \(String(describing: error))")
            return
        }
        #expect(try backend.requests(to: "user").map { $0.header("Authorization") } == ["Bearer never-issued", "Bearer also-never-issued"])
    }

    @Test("With the token check off, an authenticated client's calls pass unchanged; with it on, the token is sent as Bearer")
    func theTokenIsSentAsBearer() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        try await backendAuth(backend, ["enabled": true])
        let issued = try await APIClient(baseURL: backend.baseURL, configuration: .patient).value(.token).token
        let client = makeClient(backend) { $0.authentication = Authentication(token: { issued }, refresh: { _ in issued }) }
        let user = try await client.send(.user(uid: Known.uid))
        #expect(user.value.uid == Known.uid)
        #expect(user.attempts == 1)
        #expect(try backend.requests(to: "user").map { $0.header("Authorization") } == ["Bearer \(issued)"])
        #expect(client.statistics.tokenFetches == 1)
        #expect(client.statistics.tokenRefreshes == 0)
    }
}
