import DouyinChat
import DouyinTestSupport
import Foundation
import Testing

/// Issue 25 §2: what retrying cannot fix gives up at once with the reason; what the network or
/// the server's passing state caused backs off and retries.
@Suite("Give up or retry")
struct GiveUpOrRetryTests {
    static let fatal: [ChatError] = [
        .unusableURL(url: "http://h/", reason: "unsupported scheme"),
        .unusableURL(url: "ws://h:70000/", reason: "port out of range"),
        .invalidURL("header x holds a line break"),
        .certificateRejected(host: "h", reason: "self-signed certificate"),
        .handshakeRejected(status: 401, reason: "Unauthorized"),
        .handshakeRejected(status: 404, reason: "Not Found"),
    ]
    static let retryable: [ChatError] = [
        .connectFailed(host: "h", port: 1, errno: ECONNREFUSED),
        .connectionLost(errno: ECONNRESET),
        .timedOut(stage: "handshake"),
        .handshakeRejected(status: 500, reason: "Internal Server Error"),
        .handshakeRejected(status: 503, reason: "busy"),
        .handshakeRejected(status: 429, reason: "Too Many Requests"),
    ]

    @Test(arguments: fatal)
    func anOpeningThatCanNeverWorkGivesUpAtOnce(error: ChatError) {
        var machine = makeMachine()
        _ = machine.start()
        let actions = machine.connectFailed(generation: 1, error: error)
        #expect(retryTimer(actions) == nil, "\(error)")
        #expect(machine.state == .gaveUp(error))
    }

    @Test(arguments: retryable)
    func aPassingFailureToOpenBacksOff(error: ChatError) {
        var machine = makeMachine()
        _ = machine.start()
        #expect(retryTimer(machine.connectFailed(generation: 1, error: error)) != nil, "\(error)")
    }

    @Test(arguments: [(UInt16(1001), true), (1011, true), (1006, true), (1008, false)])
    func closeCodesDecideBetweenRetryAndGivingUp(code: UInt16, retries: Bool) {
        var machine = makeMachine()
        _ = machine.start()
        _ = machine.connected(generation: 1, at: .zero)
        let actions = machine.disconnected(generation: 1, error: .closed(code: WebSocketCloseCode(code), reason: ""), at: .seconds(1))
        #expect((retryTimer(actions) != nil) == retries, "close \(code)")
    }

    @Test(arguments: [
        ("http://127.0.0.1/", "unsupported scheme http"),
        ("ws://127.0.0.1:0/", "port 0 is out of range"),
        ("ws:///path", "no host"),
    ])
    func theEndpointNamesWhatIsWrongWithAURL(text: String, problem: String) throws {
        let url = try #require(URL(string: text))
        #expect {
            _ = try WebSocketEndpoint(url)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func theEndpointKeepsPathQueryAndDefaultPorts() throws {
        let plain = try WebSocketEndpoint(try #require(URL(string: "WS://example.com/douyin/groupchat?room=1")))
        #expect(!plain.secure && plain.host == "example.com" && plain.port == 80 && plain.target == "/douyin/groupchat?room=1")
        let secure = try WebSocketEndpoint(try #require(URL(string: "wss://example.com")))
        #expect(secure.port == 443 && secure.secure && secure.target == "/")
    }

    /// The real connection with the real client: an unusable URL ends in `gaveUp` after one
    /// attempt, never in `waiting` (before: `http://` and a bad port were retried forever).
    @Test(arguments: ["http://127.0.0.1:1/", "ws://127.0.0.1:0/"])
    func theConnectionGivesUpOnAnUnusableURLWithoutWaiting(text: String) async throws {
        let connection = ChatConnection(url: try #require(URL(string: text)), udid: nil, transport: POSIXWebSocketTransport())
        connection.start()
        var states: [String] = []
        var gaveUpWith: ChatError?
        for await event in connection.events {
            if case .state(let state) = event { states.append("\(state)") }
            if case .state(.gaveUp(let error)) = event { gaveUpWith = error }
        }
        #expect(states == ["connecting", "gave-up"])
        if case .unusableURL? = gaveUpWith {} else { Issue.record("gave up with \(String(describing: gaveUpWith))") }
    }
}

/// `douyinkit chat listen`: exit codes of an unusable URL and of a timeout without `--count`.
@Suite("chat listen gives up or keeps time")
struct ChatListenExitTests {
    @Test func aPortOutOfRangeExitsTwoNamingIt() async throws {
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:70000/douyin/groupchat", "--timeout", "30"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").first?.contains("port 70000 is out of range") == true, "\(result.stderr)")
    }

    @Test func anotherSchemeExitsTwoNamingIt() async throws {
        let result = try await Tool.run(["chat", "listen", "https://127.0.0.1/", "--timeout", "30"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").first?.contains("unsupported scheme https") == true, "\(result.stderr)")
    }

    /// Listening until the time is up is the whole job when no count was asked for.
    @Test func aTimeoutWithoutACountExitsZero() async throws {
        let closed = try ClosedPort()
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(closed.port)/", "--timeout", "0.5"])
        // Only the status: how far the retries got in 0.5 s depends on the machine's load.
        #expect(result.status == 0, "\(result.stderr)")
    }
}
