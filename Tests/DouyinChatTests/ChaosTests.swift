import DouyinBackendLauncher
import DouyinChat
import DouyinTestSupport
import Foundation
import Testing

/// Issue 25 §4: no message lost, none twice, on a network that drops, goes silent, closes with
/// 1001/1011 and restarts (scripts/servers/ws_chaos_server.py, seeded), through the real tool.
@Suite("Chat over a hostile network", .serialized)
struct ChaosTests {
    @Test func chatListenPrintsEveryIdExactlyOnceThroughDropsSilenceClosesAndRestarts() async throws {
        let total = 3000
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/ws_chaos_server.py")
        let input = Pipe()
        let (process, port, end) = try await onOwnThread {
            try startServer("the chaos server", python: "/usr/bin/python3", script: script, arguments: ["--total", "\(total)", "--seed", "25"], input: input)
        }
        // A half-second heartbeat and pong timeout find the silent connection quickly (a pong
        // late under load only adds a reconnect, which the exactly-once check covers); a short
        // backoff cap keeps a dozen reconnects to seconds. 600 s only bounds a hang (~3 s here).
        let result: Tool.Result
        do {
            result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(port)/douyin/groupchat", "--count", "\(total)", "--timeout", "600",
                                         "--heartbeat", "0.5", "--pong-timeout", "0.5", "--retry-cap", "0.3", "--verbose"])
            await stopServer(process, end: end, input: input)
        } catch {
            await stopServer(process, end: end, input: input)
            throw error
        }
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let ids = result.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        let expected = (0..<total).map { index in "c" + String(repeating: "0", count: 6 - String(index).count) + String(index) }
        // Every id exactly once; not in order: after a reconnect the gap fill's page and the
        // new socket's pushes race (seen once in a loaded run: 1309-1328 before 1270-1308).
        #expect(ids.count == total && ids.sorted() == expected, "printed \(ids.count), distinct \(Set(ids).count), missing \(Set(expected).subtracting(ids).sorted().prefix(5))")
        let stderr = result.stderr
        // The schedule really was hostile: reconnections happened, the heartbeat fired, and
        // both server close codes were seen.
        #expect(stderr.components(separatedBy: "state=open").count > 5, "\(stderr.suffix(2000))")
        #expect(stderr.contains("no pong within the heartbeat timeout"))
        #expect(stderr.contains("closed the connection with 1001") && stderr.contains("closed the connection with 1011"))
        // --verbose: the connection's log says the same, with each reconnect's backoff.
        let log = stderr.split(separator: "\n").filter { $0.hasPrefix("log: ") }
        #expect(log.contains { $0.hasPrefix("log: notice DouyinChat.ChatConnection: closed by the server code=1011 reason=chaos") }, "\(log.prefix(20))")
        #expect(log.contains { $0.contains("reconnect scheduled attempt=") && $0.contains(" delay=0.") }, "\(log.prefix(20))")
        #expect(log.contains { $0.contains("connection lost error=no pong within the heartbeat timeout") }, "the silent connection")
        #expect(log.last?.contains("stopped") == true, "\(log.suffix(3))")
    }

    /// The de-duplication window stays at its capacity over 100k ids and forgets the oldest.
    @Test func theDeduplicationWindowIsBounded() {
        var window = RecentIDs(capacity: 10_000)
        var fresh = 0
        for index in 0..<100_000 where window.insert("m\(index)") { fresh += 1 }
        #expect(fresh == 100_000)
        #expect(window.count == 10_000)
        let newest = window.insert("m99999"), oldestKept = window.insert("m90000"), forgotten = window.insert("m89999")
        #expect(!newest && !oldestKept)
        #expect(forgotten, "older than the window: new again")
        #expect(window.count == 10_000)
    }
}
