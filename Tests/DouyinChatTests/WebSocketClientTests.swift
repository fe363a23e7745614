import DouyinChat
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// The first message, or the error that ended the stream before one.
func firstMessage(_ connection: any WebSocketConnection) async throws -> WebSocketMessage? {
    for try await message in connection.messages { return message }
    return nil
}

/// How the stream ended: `nil` for a clean end, else the error.
func streamEnd(_ connection: any WebSocketConnection) async -> (messages: [WebSocketMessage], error: (any Error)?) {
    var messages: [WebSocketMessage] = []
    do {
        for try await message in connection.messages { messages.append(message) }
        return (messages, nil)
    } catch {
        return (messages, error)
    }
}

@Suite("RFC 6455 client against python3-websockets", .serialized)
struct WebSocketClientTests {
    let server: WebSocketTestServer
    // Must-not-hang bounds only: under Thread Sanitizer on busy cores a loopback handshake with
    // the Python server has taken seconds.
    let transport = POSIXWebSocketTransport(configuration: .init(connectTimeout: .seconds(30), handshakeTimeout: .seconds(30)))

    init() async throws { server = try await WebSocketTestServer.shared.value() }

    @Test func echoesTextAndSendsHeaders() async throws {
        let connection = try await transport.connect(to: server.url("/echo"), headers: [:])
        try await connection.send(text: "你好 [微笑] 😀")
        #expect(try await firstMessage(connection) == .text("你好 [微笑] 😀"))
        await connection.close(code: 1000, reason: "done")

        let withHeader = try await transport.connect(to: server.url("/headers"), headers: ["udid": "abc123"])
        #expect(try await firstMessage(withHeader) == .text("abc123"))
        await withHeader.close(code: 1000, reason: "")
    }

    @Test func sendsMaskedFramesInEveryLengthForm() async throws {
        for size in [0, 125, 126, 65535, 65536, 200_000] {
            let connection = try await transport.connect(to: server.rawURL("/raw/checkmask"), headers: [:])
            let text = String(repeating: "a", count: size)
            try await connection.send(text: text)
            let reply = try await firstMessage(connection)
            #expect(reply == .text("opcode=1 masked=True length=\(size) sha1=\(SHA1.hex(Array(text.utf8)))"))
            await connection.close(code: 1000, reason: "")
        }
    }

    @Test func readsEveryLengthForm() async throws {
        let connection = try await transport.connect(to: server.rawURL("/raw/lengths"), headers: [:])
        var sizes: [Int] = []
        for try await message in connection.messages {
            guard case .binary(let data) = message else { break }
            #expect(data.allSatisfy { $0 == UInt8(data.count % 251) })
            sizes.append(data.count)
            if sizes.count == 6 { break }
        }
        #expect(sizes == [0, 125, 126, 65535, 65536, 70000])
        await connection.close(code: 1000, reason: "")
    }

    @Test func reassemblesFragmentedMessages() async throws {
        let connection = try await transport.connect(to: server.url("/fragmented?size=100000&piece=777"), headers: [:])
        let expected = String((0..<100_000).map { Character(Unicode.Scalar(0x4E00 + $0 % 500)!) })
        #expect(try await firstMessage(connection) == .text(expected))
        await connection.close(code: 1000, reason: "")
    }

    @Test func receivesOneMebibyteMessages() async throws {
        let connection = try await transport.connect(to: server.url("/big?size=1048576"), headers: [:])
        #expect(try await firstMessage(connection) == .text(String(repeating: "x", count: 1 << 20)))
        await connection.close(code: 1000, reason: "")
    }

    @Test func refusesAMessageOverTheLimitWith1009() async throws {
        let small = POSIXWebSocketTransport(configuration: .init(maximumMessageSize: 1000))
        let connection = try await small.connect(to: server.url("/big?size=1001"), headers: [:])
        let end = await streamEnd(connection)
        #expect(end.error as? ChatError == .messageTooBig(size: 1001, limit: 1000))
        // A frame announcing 1 GiB is refused before anything is allocated.
        let huge = try await transport.connect(to: server.rawURL("/raw/toobig"), headers: [:])
        #expect(await streamEnd(huge).error as? ChatError == .messageTooBig(size: 1 << 30, limit: 16 << 20))
        #expect(try await server.lastClose("/raw/toobig") == "1009")
    }

    @Test func answersPingsAndGetsPongs() async throws {
        let connection = try await transport.connect(to: server.url("/ping"), headers: [:])
        try await connection.ping()
        #expect(try await firstMessage(connection) == .text("pong-ok"), "the server's ping was answered")
        await connection.close(code: 1000, reason: "")
    }

    @Test(arguments: [(1000, "bye"), (1001, ""), (4000, "custom"), (1008, "policy")])
    func reportsTheServersCloseCode(code: Int, reason: String) async throws {
        let connection = try await transport.connect(to: server.url("/close?code=\(code)&reason=\(reason)"), headers: [:])
        let end = await streamEnd(connection)
        #expect(end.error as? ChatError == .closed(code: WebSocketCloseCode(UInt16(code)), reason: reason))
    }

    @Test func anAbruptDropIsAConnectionLoss() async throws {
        let connection = try await transport.connect(to: server.url("/drop"), headers: [:])
        let end = await streamEnd(connection)
        #expect(end.messages == [.text("before-drop")])
        #expect(end.error as? ChatError == .connectionLost(errno: 0) || (end.error as? ChatError).map {
            if case .connectionLost = $0 { return true } else { return false }
        } == true)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let quick = POSIXWebSocketTransport(configuration: .init(handshakeTimeout: .milliseconds(300)))
        await #expect(throws: ChatError.timedOut(stage: "handshake")) {
            _ = try await quick.connect(to: server.rawURL("/raw/silent"), headers: [:])
        }
        // Silent after the handshake: the read timeout ends the stream.
        let reading = POSIXWebSocketTransport(configuration: .init(readTimeout: .milliseconds(300)))
        let connection = try await reading.connect(to: server.url("/nopong"), headers: [:])
        #expect(await streamEnd(connection).error as? ChatError == .timedOut(stage: "read"))
    }

    @Test func refusedAndClosedPortsAndBadURLs() async throws {
        await #expect(throws: ChatError.handshakeRejected(status: 403, reason: "Forbidden")) {
            _ = try await transport.connect(to: server.url("/reject?status=403"), headers: [:])
        }
        await #expect(throws: ChatError.unusableURL(url: "http://127.0.0.1/x", reason: "unsupported scheme http:// (expected ws:// or wss://)")) {
            _ = try await transport.connect(to: URL(string: "http://127.0.0.1/x")!, headers: [:])
        }
        // A port nobody listens on: ECONNREFUSED.
        let closedPort = try await Self.unusedPort()
        await #expect(throws: ChatError.connectFailed(host: "127.0.0.1", port: closedPort, errno: ECONNREFUSED)) {
            _ = try await transport.connect(to: URL(string: "ws://127.0.0.1:\(closedPort)/")!, headers: [:])
        }
    }

    @Test func aWrongAcceptKeyFailsTheHandshake() async throws {
        do {
            _ = try await transport.connect(to: server.rawURL("/raw/badaccept"), headers: [:])
            Issue.record("connected despite a wrong Sec-WebSocket-Accept")
        } catch let error as ChatError {
            guard case .handshakeInvalid(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("Sec-WebSocket-Accept"))
        }
    }

    /// Every raw route that breaks RFC 6455, with the close code the client must send.
    static let violations = [
        ("/raw/masked", 1002), ("/raw/rsv", 1002), ("/raw/opcode", 1002), ("/raw/badcont", 1002),
        ("/raw/interleaved", 1002), ("/raw/ctrlfrag", 1002), ("/raw/longping", 1002), ("/raw/nonminimal", 1002),
        ("/raw/msb64", 1002), ("/raw/badutf8", 1007), ("/raw/badutf8frag", 1007), ("/raw/badclosecode", 1002),
        ("/raw/closeonebyte", 1002), ("/raw/toobig", 1009),
    ]

    @Test(arguments: violations.dropLast())
    func protocolViolationsGetACleanCloseAndATypedError(path: String, code: Int) async throws {
        let connection = try await transport.connect(to: server.rawURL(path), headers: [:])
        let end = await streamEnd(connection)
        guard case .protocolViolation(_, let closeCode)? = end.error as? ChatError else {
            Issue.record("\(path): stream ended with \(String(describing: end.error))")
            return
        }
        #expect(closeCode == WebSocketCloseCode(UInt16(code)), "\(path)")
        #expect(try await server.lastClose(path) == "\(code)", "\(path): the server saw our close frame")
        await connection.close(code: 1000, reason: "")
    }

    /// Issue 36 item 1: a client that fails a connection (RFC 6455 §7.1.7) closes TCP at once
    /// after its close frame; waiting for the server's close is for a normal closing handshake
    /// (§7.1.1). The raw server never answers that close frame nor closes, and the client's
    /// close timeout is an hour: a client that waits for the server still holds every
    /// connection when the server's patience (120 s) ends. Every violation at once, so that
    /// patience is spent once.
    @Test func aFailedConnectionIsClosedAtOnceNotAfterTheCloseTimeout() async throws {
        let waitsAnHour = POSIXWebSocketTransport(configuration: .init(connectTimeout: .seconds(30), handshakeTimeout: .seconds(30),
                                                                       closeTimeout: .seconds(3600)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (path, code) in Self.violations {
                group.addTask {
                    let connection = try await waitsAnHour.connect(to: server.rawURL(path), headers: [:])
                    let end = await streamEnd(connection)
                    let failed: Bool = switch end.error as? ChatError {
                    case .protocolViolation(_, let sent)?: sent == WebSocketCloseCode(UInt16(code))
                    case .messageTooBig?: code == 1009
                    default: false
                    }
                    #expect(failed, "\(path): \(String(describing: end.error))")
                    #expect(try await server.lastClose(path) == "\(code)", "\(path): the server saw our close frame")
                    #expect(try await server.lastDrop(path) == "client", "\(path): the client closed TCP itself")
                }
            }
            try await group.waitForAll()
        }
    }

    /// Issue 36 item 1's other half: a normal closing handshake still waits for the server to
    /// close TCP (RFC 6455 §7.1.1). The raw server answers the client's close frame and holds
    /// the connection until the test releases it; the client, whose close timeout is an hour,
    /// must still hold it then.
    @Test func aNormalCloseWaitsForTheServerToCloseTCP() async throws {
        let waitsAnHour = POSIXWebSocketTransport(configuration: .init(connectTimeout: .seconds(30), handshakeTimeout: .seconds(30),
                                                                       closeTimeout: .seconds(3600)))
        let connection = try await waitsAnHour.connect(to: server.rawURL("/raw/closewait"), headers: [:])
        let closing = Task { await connection.close(code: 1000, reason: "done") }
        #expect(try await server.lastClose("/raw/closewait") == "1000")
        try await server.release("/raw/closewait")
        await closing.value
        #expect(try await server.lastDrop("/raw/closewait") == "server", "the client dropped TCP before the server closed it")
        #expect(await streamEnd(connection).error == nil)
    }

    @Test func closeIsIdempotentAndSendAfterCloseFails() async throws {
        let connection = try await transport.connect(to: server.url("/echo"), headers: [:])
        await connection.close(code: 1000, reason: "")
        await connection.close(code: 1000, reason: "")
        #expect(await streamEnd(connection).error == nil)
        await #expect(throws: ChatError.self) { try await connection.send(text: "late") }
        await #expect(throws: ChatError.self) { try await connection.ping() }
    }

    static func unusedPort() async throws -> Int {
        // Bind port 0, read the port, close: nobody listens there right after.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

@Suite("WebSocket frames")
struct WebSocketFrameTests {
    @Test func encodesTheShortestLengthAndMasks() {
        let frame = WebSocketFrame.encode(.text, payload: Array("Hello".utf8), mask: (0x37, 0xfa, 0x21, 0x3d))
        // RFC 6455 §5.7's masked "Hello".
        #expect(frame == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(WebSocketFrame.encode(.binary, payload: [UInt8](repeating: 0, count: 126), mask: (0, 0, 0, 0)).prefix(4) == [0x82, 0xFE, 0x00, 0x7E])
        #expect(WebSocketFrame.encode(.binary, payload: [UInt8](repeating: 0, count: 65536), mask: (0, 0, 0, 0)).prefix(10) == [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func acceptKeyOfRFC6455() {
        #expect(Handshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func closePayloadsAndUTF8() throws {
        #expect(try WebSocketFrame.parseClose([]) == (1005, ""))
        #expect(try WebSocketFrame.parseClose([0x0F, 0xA0] + Array("bye".utf8)) == (4000, "bye"))
        #expect(throws: WebSocketFrame.FrameError.self) { try WebSocketFrame.parseClose([0x03, 0xED]) }  // 1005
        #expect(throws: WebSocketFrame.FrameError("close reason is not UTF-8", closeCode: 1007)) { try WebSocketFrame.parseClose([0x03, 0xE8, 0xC0, 0x80]) }
        // A reason cut to 123 bytes never splits a character.
        let payload = WebSocketFrame.closePayload(code: 1000, reason: String(repeating: "中", count: 60))
        #expect(payload.count == 2 + 123 && WebSocketFrame.isValidUTF8(payload.dropFirst(2)))
        #expect(!WebSocketFrame.isValidUTF8([0xED, 0xA0, 0x80]), "an encoded surrogate")
        #expect(!WebSocketFrame.isValidUTF8([0xF4, 0x90, 0x80, 0x80]), "past U+10FFFF")
        #expect(WebSocketFrame.isValidUTF8(Array("😀é".utf8)))
    }
}
