import DouyinAPI
import DouyinModels
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 26 §2/§3: upload progress when the app brings its own URLSession. Before, the
/// client sent such a request as a completion-handler task, and the progress closure heard
/// nothing (on this Linux not even the task's `countOfBytesSent` moves for one).
///
/// The uploads here allow 300 s, not the default 10: this path rides Swift concurrency's pool
/// and FoundationNetworking's async API, both on the global dispatch queue on Linux, and a
/// suite that once ran beside this one filled that queue with spinners for up to 30 s on
/// purpose (seen: a 10 s deadline expired in every run beside it, never alone; that suite,
/// PoolStarvationTests, now runs in a process of its own). Under Thread Sanitizer, with
/// every suite starting at once, the first tests of the fresh-clone run finished only after
/// 84-130 s and a 60 s deadline expired here. The deadline is a guard against a hang, not what
/// these tests check (the stalled-upload test below checks the deadline itself).
@Suite("Upload progress on an app's own session")
struct OwnSessionUploadTests {
    /// A client on `session` whose attempts may take 300 s, sent once.
    static func client(_ backend: LocalBackend, _ session: URLSession) -> APIClient {
        var configuration = APIClient.Configuration()
        configuration.timeout = .seconds(300)
        configuration.retry.maximumRetries = 0
        return APIClient(baseURL: backend.baseURL, configuration: configuration, session: session)
    }

    /// An app's session delegate that keeps what `didSendBodyData` told it.
    final class AppDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        // @unchecked: NSObject; the one stored value is a lock box.
        let sent = LockedBox([Int64]())

        func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                        totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
            sent.withLock { $0.append(totalBytesSent) }
        }
    }

    @Test("A multipart upload on the app's session reports progress to its last byte, and the app's delegate still hears it")
    func progressOnAnAppsSession() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let app = AppDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: app, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let client = Self.client(backend, session)
        let image = tinyPNG + Data(repeating: 0x5A, count: 3 << 20)
        let reports = LockedBox([UploadProgress]())

        let message = try await client.send(.groupChatImage(udid: Known.fixtureUDID, image: image)) { progress in
            reports.withLock { $0.append(progress) }
        }

        #expect(message.value.picOriginal?.width == 5)
        let seen = reports.withLock { $0 }
        let body = try #require(try backend.requests(to: "groupchat/image").first).bodyData
        let last = try #require(seen.last, "no progress reported on the app's session")
        #expect(last.totalBytes == Int64(body.count) && last.bytesSent == last.totalBytes)
        #expect(seen.count > 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
        // The app's own delegate is called on its queue: wait for the queue to drain.
        await withCheckedContinuation { done in session.delegateQueue.addBarrierBlock { done.resume() } }
        #expect(app.sent.withLock { $0.last } == Int64(body.count))
    }

    @Test("On a session without a delegate, progress and the answer's checks hold; a call without progress is unchanged")
    func progressOnAPlainSession() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = Self.client(backend, session)
        let image = tinyPNG + Data(repeating: 1, count: 500_000)
        let count = LockedBox(0)
        _ = try await client.send(.groupChatImage(udid: Known.fixtureUDID, image: image)) { _ in count.withLock { $0 += 1 } }
        #expect(count.withLock { $0 } > 0)
        // The server's failure is still the typed error on the progress path.
        try backend.fail(status: 503)
        await #expect(throws: APIError.self) {
            try await client.send(.groupChatImage(udid: Known.fixtureUDID, image: image)) { _ in }
        }
        _ = try await client.send(.groupChatText(udid: Known.fixtureUDID, text: "no progress asked"))
    }

    @Test("On the app's session with progress asked, a stalled upload still ends at the client's deadline")
    func aStalledUploadTimesOut() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var configuration = APIClient.Configuration()
        configuration.timeout = .milliseconds(500)
        configuration.retry.maximumRetries = 0
        let client = APIClient(baseURL: backend.baseURL, configuration: configuration, session: session)
        try backend.stall(seconds: 30)
        defer { try? backend.reset() }
        let error = await apiError {
            try await client.send(.groupChatImage(udid: Known.fixtureUDID, image: tinyPNG)) { _ in }
        }
        guard case .transport(_, let urlError) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .timedOut)
    }
}
