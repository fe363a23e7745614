import DouyinLogging
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Issue 26 §3: the proxy's log hook, driven by curl and a raw client against nginx.
@Suite("Proxy server logging", .serialized)
struct ProxyLoggingTests {
    @Test func startRefusalsOriginFailuresAndStopAreLoggedWithoutTheToken() async throws {
        let nginx = try await NginxOrigin.start()
        try nginx.serve(videoBytes(20_000, seed: 3), at: "/v/a.mp4")
        let closed = try ClosedPort()
        let recorder = LogRecorder()
        try await withTemporaryDirectory { folder in
            var configuration = VideoProxyServer.Configuration()
            configuration.log = recorder.handler
            let server = VideoProxyServer(cache: try VideoCache(directory: folder.url, sizeLimit: 1 << 30), configuration: configuration)
            let base = try server.start()
            let token = base.pathComponents[1]
            let port = server.port!
            let good = server.url(for: nginx.url("/v/a.mp4"))!

            // Given: one good request, then one of each refusal, an origin 404 and an origin
            // nobody listens on.
            let first = try await curl(good, ["-r", "0-999"])
            #expect(first.status == 206, "curl exit \(first.exitCode): \(first.stderr); the proxy's counts: \(server.statistics)")
            let wrongToken = URL(string: good.absoluteString.replacingOccurrences(of: token, with: String(repeating: "A", count: 24)))!
            #expect(try await curl(wrongToken).status == 403)
            #expect(try await curl(good, ["-H", "Host: attacker.example:\(port)"]).status == 403)
            #expect(try await curl(server.url(for: URL(string: "ftp://127.0.0.1:\(nginx.port)/v/a.mp4")!)!).status == 400)
            let malformed = try await onOwnThread {
                let client = try RawClient(port: port)
                client.send(Array("NOT A REQUEST LINE AT ALL\r\n\r\n".utf8))
                return client.readToEnd().0.count
            }
            #expect(malformed > 0)
            #expect(try await curl(server.url(for: nginx.url("/v/missing.mp4"))!).status == 404)
            #expect(try await curl(server.url(for: URL(string: "http://127.0.0.1:\(closed.port)/v.mp4")!)!).status == 502)
            await server.stop()

            // Then: each is a line saying what happened and why; the token is in none.
            let messages = recorder.events.map(\.message)
            #expect(messages.first == "started" && messages.last == "stopped", "\(messages)")
            #expect(recorder.events("started").first?.metadata == ["port": String(port)])
            let reasons = recorder.events("request refused").compactMap { $0.metadata["reason"] }
            #expect(reasons.count == 4, "\(reasons)")
            #expect(reasons.contains("wrong or missing token"))
            #expect(reasons.contains { $0.hasPrefix("Host \"attacker.example") })
            #expect(reasons.contains("the path is not one percent-encoded http(s) URL"))
            #expect(reasons.contains("malformed request line"))
            #expect(recorder.events("request refused").allSatisfy { $0.level == .notice })
            let failures = recorder.events("origin failure passed to the player")
            #expect(failures.map { $0.metadata["status"] } == ["404", "502"])
            #expect(failures.allSatisfy { $0.level == .error && $0.metadata["error"] != nil })
            #expect(recorder.events("request answered").first?.metadata["status"] == "206")
            #expect(recorder.events.allSatisfy { !$0.description.contains(token) })
        }
    }

    @Test func noHookNoLinesAndTheEventStreamIsUnchanged() async throws {
        let nginx = try await NginxOrigin.start()
        try nginx.serve(videoBytes(5_000), at: "/v/a.mp4")
        try await withTemporaryDirectory { folder in
            let server = VideoProxyServer(cache: try VideoCache(directory: folder.url, sizeLimit: 1 << 30))
            #expect(VideoProxyServer.Configuration().log == nil)
            let events = server.events()
            try server.start()
            #expect(try await curl(server.url(for: nginx.url("/v/a.mp4"))!).status == 200)
            await server.stop()
            var kinds: [String] = []
            for await event in events {
                switch event {
                case .started: kinds.append("started")
                case .request: kinds.append("request")
                case .full: kinds.append("full")
                case .stopped: kinds.append("stopped")
                }
                if kinds.last == "stopped" { break }
            }
            #expect(kinds == ["started", "request", "stopped"])
        }
    }

    @Test func theCapReachedIsANotice() throws {
        let line = try #require(VideoProxyServer.logEvent(for: .full(openConnections: 8), maxConnections: 8))
        #expect(line.level == .notice && line.message == "connection cap reached with none idle, new connections refused (503) or waiting")
        #expect(line.metadata == ["open": "8", "cap": "8"])
        #expect(line.subsystem == VideoProxyServer.subsystem)
    }
}
