import DouyinKit
import DouyinBackendLauncher
import Foundation

extension Demo {
    /// The API client against the local backend: the user, two pages of awemes, a comment
    /// posted and listed; then the backend stopped and the same calls answered from the fallback.
    static func showAPI(_ fixtures: URL) async throws {
        print("\n== API client (local backend, then offline fallback)")
        guard let backend = await startBackend(fixtures) else { return }
        defer { backend.stop() }  // also when a call throws; stopping twice is harmless
        // The fallback folder: the package's own fixtures under the names the store looks for.
        let offline = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-fallback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: offline, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: offline) }
        for (file, fixture) in [("user.json", "user.json"), ("awemes.json", "feed.json"), ("favorites.json", "feed-page2.json"),
                                ("comments.json", "comments.json"), ("groupchats.json", "groupchats.json")] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("api/\(fixture)"), to: offline.appendingPathComponent(file))
        }
        var configuration = APIClient.Configuration()
        configuration.fallback = FallbackStore(directory: offline)
        configuration.retry.maximumRetries = 0  // the demo shows the fallback at once
        let client = APIClient(baseURL: backend.baseURL, configuration: configuration)
        print("  backend at \(backend.baseURL.absoluteString)")

        func calls(_ label: String) async throws {
            let user = try await client.send(.user(uid: "97795069001"))
            print("  [\(label)] user \(user.value.nickname) (uid \(user.value.uid)) source=\(user.source.rawValue)")
            var pages = 0
            for try await page in client.pages(.awemePost(uid: user.value.uid), limit: 2) {
                pages += 1
                print("  [\(label)] awemes page \(page.number): \(page.items.count) items, has_more=\(page.hasMore ? 1 : 0), first \(page.items.first?.awemeID ?? "-") source=\(page.source.rawValue)")
            }
            if pages < 2 { print("  [\(label)] awemes: paging ended after \(pages) page(s)") }
            let comments = try await client.send(.commentList(awemeID: "6600000000000000001"))
            print("  [\(label)] comments: \(comments.value.count), newest \"\(comments.value.first?.text ?? "-")\" source=\(comments.source.rawValue)")
        }

        let visitor = try await client.visitor(deviceID: "douyinkit-demo-device")
        print("  visitor udid \(visitor.udid) = md5(\"douyinkit-demo-device\")")
        let comment = try await client.value(.commentPost(awemeID: "6600000000000000001", udid: visitor.udid, text: "posted by the demo: 1+1=2 & 😺"))
        print("  posted comment \(comment.cid): \"\(comment.text)\"")
        try await calls("online")
        backend.stop()
        print("  backend stopped")
        try await calls("offline")
        let stats = client.statistics
        print("  statistics: attempts=\(stats.attempts) fallback answers=\(stats.fallbackAnswers) failures=\(stats.failures)")
    }
}
