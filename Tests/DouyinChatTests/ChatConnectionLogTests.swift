import DouyinChat
import DouyinLogging
import DouyinTestSupport
import Foundation
import Testing

/// ChatConnection's log hook against the real python3-websockets test server.
@Suite("Chat connection logging", .serialized)
struct ChatConnectionLogTests {
    let server: WebSocketTestServer
    init() async throws { server = try await WebSocketTestServer.shared.value() }

    @Test func aServerCloseAndTheReconnectWithItsBackoffAreLogged() async throws {
        // Given: a server that accepts, then closes every connection with 1011 (retried).
        let recorder = LogRecorder()
        let clock = TestClock()
        let connection = ChatConnection(url: server.url("/close?code=1011&reason=restarting&token=secret"), udid: "u1",
                                        configuration: .init(log: recorder.handler), transport: POSIXWebSocketTransport(),
                                        clock: clock, random: SeededRandom(seed: 25))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        // When: it connects, is closed, schedules a retry; and reconnects after the backoff.
        var seen = await events(of: connection, until: isWaiting, iterator: &iterator)
        guard case .state(.waiting(1, let delay?))? = seen.last else { Issue.record("\(seen)"); return }
        if delay > .zero {
            await clock.waitForSleepers(1)
            clock.advance(by: delay)
        }
        seen += await events(of: connection, until: { $0 == .state(.open) }, iterator: &iterator)
        connection.stop()
        while let event = await iterator.next() { seen.append(event) }
        // Then: every step is one line, in order, the server's code and reason and the drawn
        // backoff included; the URL's query (a token) is not.
        let lines = recorder.events.map(\.message)
        #expect(Array(lines.prefix(6)) == ["connecting", "connected", "closed by the server", "reconnect scheduled", "connecting", "connected"], "\(lines)")
        #expect(lines.last == "stopped")
        let closed = try #require(recorder.events("closed by the server").first)
        #expect(closed.metadata["code"] == "1011" && closed.metadata["reason"] == "restarting")
        #expect(closed.level == .notice && closed.subsystem == "DouyinChat.ChatConnection")
        let retry = try #require(recorder.events("reconnect scheduled").first)
        let (whole, fraction) = delay.components
        #expect(retry.metadata["attempt"] == "1")
        #expect(retry.metadata["delay"] == String(format: "%.3f", Double(whole) + Double(fraction / 1_000_000_000_000_000) / 1000))
        #expect(recorder.events.allSatisfy { !($0.metadata["url"] ?? "").contains("secret") && $0.metadata["url"] != nil })
    }

    @Test func aRefusedHandshakeAndGivingUpAreLogged() async throws {
        let recorder = LogRecorder()
        let connection = ChatConnection(url: server.url("/reject?status=403"), udid: nil, configuration: .init(log: recorder.handler),
                                        transport: POSIXWebSocketTransport(), clock: TestClock())
        connection.start()
        for await _ in connection.events {}
        #expect(recorder.events.map(\.message) == ["connecting", "handshake failed", "gave up"])
        #expect(recorder.events("handshake failed").first?.metadata["error"]?.contains("403") == true)
        #expect(recorder.events("gave up").first?.level == .error)
    }

    @Test func anOpenConnectionThatDropsIsALossAndARefusedPortAConnectFailure() {
        let url = URL(string: "ws://127.0.0.1:9/douyin/groupchat?udid=u")!
        #expect(ChatConnectionLog.event(error: .connectionLost(errno: 0), url: url).message == "connection lost")
        #expect(ChatConnectionLog.event(error: .pongTimeout, url: url).message == "connection lost")
        #expect(ChatConnectionLog.event(error: .timedOut(stage: "read"), url: url).message == "connection lost")
        #expect(ChatConnectionLog.event(error: .timedOut(stage: "handshake"), url: url).message == "connect failed")
        #expect(ChatConnectionLog.event(error: .connectFailed(host: "127.0.0.1", port: 9, errno: ECONNREFUSED), url: url).message == "connect failed")
        #expect(ChatConnectionLog.event(error: .pongTimeout, url: url).metadata["url"] == "ws://127.0.0.1:9/douyin/groupchat")
        #expect(ChatConnectionLog.event(for: .idle, url: url) == nil)
        #expect(ChatConnectionLog.event(for: .waiting(attempt: 2, delay: nil), url: url)?.message == "waiting for the network")
    }
}
