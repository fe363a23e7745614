import DouyinTestSupport
import Foundation
import Testing

/// The WebSocket port of the shared test server (scripts/servers/ws_test_server.py).
private func pushServerPort() async throws -> Int { try await WebSocketTestServer.shared.value().wsPort }

@Suite("douyinkit chat listen")
struct ChatVerbTests {
    @Test func printsEachPushedMessageOnceAndExitsAfterN() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/push?count=3&name=verb&prefix=v", "--udid", "u1", "--count", "3", "--timeout", "600"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "v0 text message 0 [微笑]\nv1 text message 1 [微笑]\nv2 text message 2 [微笑]\n")
        let states = result.stderr.split(separator: "\n").filter { $0.hasPrefix("state=") }
        #expect(states == ["state=connecting", "state=open", "state=closed"])
    }

    @Test func reconnectsAfterADropAndStillPrintsEachIdOnce() async throws {
        let port = try await pushServerPort()
        // The first connection pushes r0, r1 and drops; the second pushes r0, r1, r2 and drops:
        // r2 comes only through a reconnection, and r0, r1 come twice. The timeout is a hang
        // guard only (a first version ended on a 3 s timeout, which a loaded machine can reach
        // before the reconnection).
        let name = "verb-drop-\(UUID().uuidString)"
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/push?count=2&then=drop&grow=1&name=\(name)&prefix=r", "--count", "3", "--timeout", "600"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "r0 text message 0 [微笑]\nr1 text message 1 [微笑]\nr2 text message 2 [微笑]\n")
        #expect(result.stderr.contains("state=waiting"))
        #expect(result.stderr.components(separatedBy: "state=open").count > 2, "reconnected at least once: \(result.stderr)")
    }

    @Test func exitsOneWhenTheTimeoutPassesFirst() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/echo", "--count", "1", "--timeout", "0.5"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        // Not whether it was open by then: on a loaded machine the handshake may take longer.
        #expect(result.stderr.contains("timed out after 0.5 s"), "\(result.stderr)")
    }

    @Test func aRefusedHandshakeEndsWithTheReason() async throws {
        let port = try await pushServerPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/reject?status=403", "--count", "1", "--timeout", "600"])
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
