import DouyinChat
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// RFC 6455 §4.1: the client fails the connection on an opening-handshake answer that breaks a
/// rule. Each case is a real raw-socket server (ws_test_server.py, `/raw/answer?case=…`) that
/// answers the handshake broken one way and then pushes a GroupChat that must never arrive.
@Suite("The opening handshake's answer, checked by RFC 6455 §4.1", .serialized)
struct HandshakeAnswerTests {
    let server: WebSocketTestServer
    // The raw server never answers a close: drop the connection after 100 ms instead of 2 s.
    let transport = POSIXWebSocketTransport(configuration: .init(connectTimeout: .seconds(30), handshakeTimeout: .seconds(30), closeTimeout: .milliseconds(100)))

    init() async throws { server = try await WebSocketTestServer.shared.value() }

    /// Connects to the answer `name` with `headers`; the message the server pushes after it.
    private func connect(_ name: String, headers: [String: String] = [:]) async throws -> WebSocketMessage? {
        let connection = try await transport.connect(to: server.rawURL("/raw/answer?case=\(name)"), headers: headers)
        do {
            let message = try await firstMessage(connection)
            await connection.close(code: 1000, reason: "")
            return message
        } catch {
            await connection.close(code: 1000, reason: "")
            throw error
        }
    }

    /// The `handshakeInvalid` reason of connecting to `name`, or `nil` (recorded) when it connected.
    private func invalidReason(_ name: String, headers: [String: String] = [:]) async -> String? {
        do {
            let message = try await connect(name, headers: headers)
            Issue.record("\(name): connected and got \(String(describing: message))")
        } catch ChatError.handshakeInvalid(let why) {
            return why
        } catch {
            Issue.record("\(name): \(error)")
        }
        return nil
    }

    @Test(arguments: [
        // Regressions: each of these was accepted and the server's message delivered.
        ("protocol", "subprotocol \"chat\" (none was offered)"),
        ("emptyprotocol", "subprotocol \"\" (none was offered)"),
        ("statusplus", "bad status line"),
        ("accepttwice", "Sec-WebSocket-Accept"),
        ("spacebeforecolon", "malformed header name"),
        ("barelf", "bare CR or LF"),
        ("emptyextension", "extensions the client did not offer"),
        // Refused before too; kept here so every rule has its real server.
        ("extension", "extensions the client did not offer: \"x-webkit-deflate-frame\""),
        // permessage-deflate is offered, but only as RFC 7692 §7.1 allows it back.
        ("deflatebits", "server_max_window_bits=16 is not 8-15"),
        ("deflateunknown", "parameter \"x_param\" is not one the client can accept"),
        ("deflatetwice", "more than one extension"),
        ("deflaterepeat", "server_no_context_takeover given twice"),
        ("noupgrade", "Upgrade is missing"),
        ("upgradeother", "Upgrade is \"h2c\""),
        ("upgradelist", "Upgrade is \"websocket, h2c\""),
        ("noconnection", "Connection is missing"),
        ("connectionother", "Connection is \"keep-alive\""),
        ("connectionsubstring", "Connection is \"upgraded\""),
        ("noaccept", "Sec-WebSocket-Accept missing"),
        ("acceptcase", "does not match the key"),
    ])
    func aBrokenAnswerFailsTheConnection(name: String, expected: String) async throws {
        let why = await invalidReason(name)
        #expect(why?.contains(expected) == true, "\(name): \(why ?? "-")")
    }

    /// permessage-deflate comes back only where the client offered it.
    @Test func deflateIsAcceptedOnlyWhenOffered() async throws {
        #expect(try await connect("deflate")?.isAttackerMessage == true)
        let plain = POSIXWebSocketTransport(configuration: .init(handshakeTimeout: .seconds(30), closeTimeout: .milliseconds(100), compression: false))
        await #expect(throws: ChatError.handshakeInvalid("the server chose extensions the client did not offer: \"permessage-deflate\"")) {
            _ = try await plain.connect(to: server.rawURL("/raw/answer?case=deflate"), headers: [:])
        }
    }

    @Test func aStatusOtherThan101IsARefusal() async throws {
        await #expect(throws: ChatError.handshakeRejected(status: 200, reason: "OK")) {
            _ = try await connect("status200")
        }
    }

    @Test func tokensAreComparedIgnoringCaseAndFoldedLinesJoinTheirField() async throws {
        // `Upgrade: WebSocket`, `CONNECTION: keep-alive, UPGRADE`, lower-case field names.
        #expect(try await connect("mixedcase")?.isAttackerMessage == true)
        // ` Sec-WebSocket-Protocol: chat` continues `X-Note` (obsolete folding): not a field.
        #expect(try await connect("folded")?.isAttackerMessage == true)
        #expect(try await connect("good")?.isAttackerMessage == true)
    }

    @Test func aSubprotocolMustBeExactlyOneTheClientOffered() async throws {
        let offered = ["Sec-WebSocket-Protocol": "superchat, chat"]
        #expect(try await connect("protocol", headers: offered)?.isAttackerMessage == true)
        #expect(await invalidReason("protocol", headers: ["sec-websocket-protocol": "superchat"])?.contains("offered: superchat") == true)
        #expect(await invalidReason("protocollist", headers: offered)?.contains("\"chat, superchat\"") == true)
    }

    @Test func theAnswerIsParsedAsHTTPSays() throws {
        let answer = try HandshakeAnswer(head: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nA: 1\r\na:  2 \r\nB: x\r\n\ty")
        #expect(answer.status == 101)
        #expect(answer.reason == "Switching Protocols")
        #expect(answer.fields == ["upgrade": "websocket", "a": "1, 2", "b": "x y"])
        #expect(throws: ChatError.handshakeInvalid("a continuation line before the first header field")) {
            try HandshakeAnswer(head: "HTTP/1.1 101 Switching Protocols\r\n Upgrade: websocket")
        }
        #expect(throws: ChatError.handshakeInvalid("header line without a colon: \"Upgrade websocket\"")) {
            try HandshakeAnswer(head: "HTTP/1.1 101 Switching Protocols\r\nUpgrade websocket")
        }
        #expect(throws: ChatError.self) { try HandshakeAnswer(head: "HTTP/1.1 1010 Switching Protocols") }
        #expect(throws: ChatError.self) { try HandshakeAnswer(head: "ICY 101 OK") }
        #expect(HandshakeAnswer.offeredProtocols(in: ["udid": "x", "SEC-WEBSOCKET-PROTOCOL": "a, b,,c"]) == ["a", "b", "c"])
    }

    @Test func theChatConnectionNeverDeliversAMessageAfterABrokenAnswer() async throws {
        let connection = ChatConnection(url: server.rawURL("/raw/answer?case=protocol"), udid: nil,
                                        configuration: .init(reconnect: ReconnectPolicy(base: .milliseconds(1), cap: .milliseconds(2))),
                                        transport: transport)
        connection.start()
        var errors = 0
        for await event in connection.events {
            switch event {
            case .message(let chat): Issue.record("delivered \(chat.id) from a broken handshake")
            case .error(let error):
                #expect(error == .handshakeInvalid("the server chose the subprotocol \"chat\" (none was offered)"))
                errors += 1
                // Two attempts refused is enough: the policy retries, never delivers.
                if errors == 2 { connection.stop() }
            case .state: break
            }
        }
        #expect(errors == 2)
    }
}

private extension WebSocketMessage {
    /// Whether this is the GroupChat the raw server pushes after its answer.
    var isAttackerMessage: Bool {
        guard case .text(let text) = self else { return false }
        return (try? JSONDecoder().decode(GroupChat.self, from: Data(text.utf8)))?.id == "attacker-1"
    }
}
