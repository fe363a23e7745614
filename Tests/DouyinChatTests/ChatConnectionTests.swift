import DouyinChat
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// A fixed newest page, standing in for `groupchat/list` where the test needs to choose it.
struct FixedHistory: ChatHistorySource {
    var messages: [GroupChat]
    func latestMessages() async throws -> [GroupChat] { messages }
}

/// Reads events until `predicate` holds for one; returns everything read, that one last.
func events(of connection: ChatConnection, until predicate: (ChatConnection.Event) -> Bool,
            iterator: inout AsyncStream<ChatConnection.Event>.Iterator) async -> [ChatConnection.Event] {
    var seen: [ChatConnection.Event] = []
    while let event = await iterator.next() {
        seen.append(event)
        if predicate(event) { break }
    }
    return seen
}

func isWaiting(_ event: ChatConnection.Event) -> Bool {
    if case .state(.waiting) = event { return true } else { return false }
}

@Suite("Chat connection against python3-websockets", .serialized)
struct ChatConnectionTests {
    let server: WebSocketTestServer
    init() async throws { server = try await WebSocketTestServer.shared.value() }

    @Test func reconnectsWithBackoffDeduplicatesAndFillsTheGap() async throws {
        // Given: a server that pushes m0…m2 and drops every connection, and a history whose
        // newest page holds m2 and m3 (m3 pushed during the outage).
        let clock = TestClock()
        var random = SeededRandom(seed: 1234)
        let history = FixedHistory(messages: [chat("m3", at: 1_600_000_003, "during the outage"), chat("m2", at: 1_600_000_002)])
        let connection = ChatConnection(url: server.url("/push?count=3&then=drop&name=gap&prefix=m"), udid: "u1",
                                        history: history, transport: POSIXWebSocketTransport(), clock: clock, random: SeededRandom(seed: random.next()))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        // When: it connects, gets three pushes and loses the connection.
        var seen = await events(of: connection, until: isWaiting, iterator: &iterator)
        guard case .state(.waiting(let attempt, let delay?))? = seen.last else { Issue.record("\(seen)"); return }
        #expect(attempt == 1)
        #expect(delay <= .seconds(1), "first retry within the 1 s base, \(random)")
        // Then: after the drawn delay (test clock, no sleeping) it reconnects and fills the gap.
        if delay > .zero {
            await clock.waitForSleepers(1)
            clock.advance(by: delay)
        }
        seen += await events(of: connection, until: { if case .message(let m) = $0 { return m.id == "m3" } else { return false } }, iterator: &iterator)
        connection.stop()
        while let event = await iterator.next() { seen.append(event) }
        let messages = seen.compactMap { if case .message(let m) = $0 { return m.id } else { return nil } }
        #expect(messages == ["m0", "m1", "m2", "m3"], "each id once, \(random)")
        let states = seen.compactMap { if case .state(let s) = $0 { return s.description } else { return nil } }
        #expect(states.prefix(4) == ["connecting", "open", "waiting", "connecting"])
        #expect(states.last == "closed")
        #expect(connection.state == .closed)
    }

    /// Pins: a failing custom history source reached the app as text only
    /// (`gapFillFailed(String)`); its error is now kept as thrown.
    @Test func gapFillFailedKeepsACustomSourcesErrorAsThrown() async throws {
        struct StoreError: Error, Equatable { let errno: Int32 }
        struct FailingHistory: ChatHistorySource {
            func latestMessages() async throws -> [GroupChat] { throw StoreError(errno: ENOSPC) }
        }
        let clock = TestClock()
        let connection = ChatConnection(url: server.url("/push?count=1&then=drop&name=source&prefix=s"), udid: "u1", history: FailingHistory(),
                                        transport: POSIXWebSocketTransport(), clock: clock, random: SeededRandom(seed: 7))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        let first = await events(of: connection, until: isWaiting, iterator: &iterator)
        guard case .state(.waiting(_, let delay?))? = first.last else { Issue.record("\(first)"); return }
        if delay > .zero {
            await clock.waitForSleepers(1)
            clock.advance(by: delay)
        }
        let seen = await events(of: connection, until: { if case .error(.gapFillFailed) = $0 { return true } else { return false } }, iterator: &iterator)
        connection.stop()
        guard case .error(.gapFillFailed(.source(let error)))? = seen.last else { Issue.record("\(seen)"); return }
        #expect(error as? StoreError == StoreError(errno: ENOSPC))
        #expect(ChatError.gapFillFailed(.source(error)) == .gapFillFailed(.source(StoreError(errno: ENOSPC))))
        #expect(ChatError.gapFillFailed(.source(error)) != .gapFillFailed(.source(StoreError(errno: EIO))))
    }

    @Test func aDeadConnectionIsFoundByTheHeartbeat() async throws {
        let clock = TestClock()
        let connection = ChatConnection(url: server.rawURL("/raw/nopong"), udid: nil, transport: POSIXWebSocketTransport(), clock: clock, random: SeededRandom(seed: 5))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        _ = await events(of: connection, until: { $0 == .state(.open) }, iterator: &iterator)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(25))  // ping
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))  // no pong
        let seen = await events(of: connection, until: isWaiting, iterator: &iterator)
        #expect(seen.contains(.error(.pongTimeout)), "\(seen)")
        connection.stop()
    }

    @Test func aPongKeepsTheConnectionOpen() async throws {
        let clock = TestClock()
        let connection = ChatConnection(url: server.url("/echo"), udid: nil, transport: POSIXWebSocketTransport(), clock: clock, random: SeededRandom(seed: 6))
        var iterator = connection.events.makeAsyncIterator()
        connection.start()
        _ = await events(of: connection, until: { $0 == .state(.open) }, iterator: &iterator)
        await clock.waitForSleepers(1)
        for _ in 0..<3 {
            clock.advance(by: .seconds(25))
            // The ping's deadline and, once the pong came, the next heartbeat: two sleeps.
            await clock.waitForSleepers(2)
        }
        #expect(connection.state == .open)
        connection.stop()
        var rest: [ChatConnection.Event] = []
        while let event = await iterator.next() { rest.append(event) }
        #expect(rest == [.state(.closed)])
    }

    @Test func aRefusedHandshakeGivesUpWithTheReason() async throws {
        let connection = ChatConnection(url: server.url("/reject?status=403"), udid: nil, transport: POSIXWebSocketTransport(), clock: TestClock())
        connection.start()
        var seen: [ChatConnection.Event] = []
        for await event in connection.events { seen.append(event) }
        #expect(seen.first == .state(.connecting(attempt: 0)))
        #expect(seen.contains(.error(.handshakeRejected(status: 403, reason: "Forbidden"))))
        #expect(seen.last == .state(.gaveUp(.handshakeRejected(status: 403, reason: "Forbidden"))))
    }

    @Test func aPolicyCloseGivesUp() async throws {
        let connection = ChatConnection(url: server.url("/no-such-path"), udid: nil, transport: POSIXWebSocketTransport(), clock: TestClock())
        connection.start()
        var seen: [ChatConnection.Event] = []
        for await event in connection.events { seen.append(event) }
        #expect(seen.last == .state(.gaveUp(.closed(code: 1008, reason: "unknown path"))))
    }
}
