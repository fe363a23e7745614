import DouyinTestSupport
import Foundation
import Testing

/// The WebSocket port of the shared test server (scripts/servers/ws_test_server.py).
private func pushServerPort() async throws -> Int { try await WebSocketTestServer.shared.value().wsPort }

@Suite("douyinkit chat listen")
struct ChatVerbTests {
    @Test func printsEachPushedMessageOnceAndExitsAfterN() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/push?count=3&name=verb&prefix=v", "--udid", "u1", "--count", "3", "--timeout", "20"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "v0 text message 0 [微笑]\nv1 text message 1 [微笑]\nv2 text message 2 [微笑]\n")
        let states = result.stderr.split(separator: "\n").filter { $0.hasPrefix("state=") }
        #expect(states == ["state=connecting", "state=open", "state=closed"])
    }

    @Test func reconnectsAfterADropAndStillPrintsEachIdOnce() async throws {
        let port = try await pushServerPort()
        // Each connection pushes r0, r1 and drops; r2 never comes, so the timeout ends it.
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/push?count=2&then=drop&name=verb-drop&prefix=r", "--count", "3", "--timeout", "3"])
        #expect(result.status == 1)
        #expect(result.stdout == "r0 text message 0 [微笑]\nr1 text message 1 [微笑]\n")
        #expect(result.stderr.contains("state=waiting"))
        #expect(result.stderr.components(separatedBy: "state=open").count > 2, "reconnected at least once: \(result.stderr)")
    }

    @Test func exitsOneWhenTheTimeoutPassesFirst() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/echo", "--count", "1", "--timeout", "0.5"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("state=open"))
    }

    @Test func aRefusedHandshakeEndsWithTheReason() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/reject?status=403", "--count", "1", "--timeout", "20"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("403"))
        #expect(result.stderr.contains("state=closed"))
    }

    @Test func badArgumentsExitTwo() async throws {
        #expect(try await Tool.run(["chat", "listen"]).status == 2)
        #expect(try await Tool.run(["chat", "listen", "http://x/"]).status == 2)
        #expect(try await Tool.run(["chat", "listen", "ws://127.0.0.1:1/", "--count", "0"]).status == 2)
    }
}
