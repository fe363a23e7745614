import DouyinTestSupport
import Foundation
import Testing

/// Issue 21 item 19: text from a server or a file never forges an output line nor reaches the
/// terminal as a control. Each test feeds the verb hostile text through a real server or a
/// real file and asserts the exact lines, and that neither stream holds a raw control.
@Suite("Output injection: every text from the network or a file is escaped")
struct OutputInjectionTests {
    /// Whether `text` holds a character that forges a line or drives a terminal, other than the
    /// newline that ends each line (a TAB does neither: it stays, issue 36 item 3).
    static func holdsRawControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
    }

    /// Records an issue when stdout or stderr of `result` holds a raw control.
    static func expectClean(_ result: Tool.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!holdsRawControl(result.stdout), "stdout: \(result.stdout.debugDescription)", sourceLocation: sourceLocation)
        #expect(!holdsRawControl(result.stderr), "stderr: \(result.stderr.debugDescription)", sourceLocation: sourceLocation)
    }

    // MARK: - chat listen

    @Test func chatListenEscapesTheServersIdsTypesContentsAndCloseReason() async throws {
        let server = try await WebSocketTestServer.shared.value()
        // Given a server pushing two GroupChats with CR/LF, ESC, BEL, C1, DEL, NUL and U+2028 in
        // their id, msg_type and msg_content, then closing with 1008 and such a reason,
        let result = try await Tool.run(["chat", "listen", server.url("/hostile").absoluteString, "--timeout", "20"])
        // then each message is one line, every field escaped but its TAB kept as it came (a TAB
        // neither forges a line nor drives a terminal; issue 36 item 3), and the 1008 close gives
        // up (exit 1, DESIGN.md's chat listen contract),
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout == #"""
        h1\r\nforged 0 text fake text\u{1B}[2J a\u{7}b\u{1B}]0;title\u{7}\r\nv0 text forged line
        h2\u{9B}31m image\u{2028}x back\\slash\#ttab\u{7F}\u{0}end

        """#)
        // and the close reason shows escaped in the error and give-up lines.
        let reason = #"server closed the connection with 1008: bye\r\nstate=open\u{1B}[0m\u{7}"#
        #expect(result.stderr == """
        state=connecting
        state=open
        error: \(reason)
        error: gave up: \(reason)
        state=closed

        """)
        Self.expectClean(result)
    }

    @Test func chatListenEscapesARefusalsReasonPhrase() async throws {
        let server = try await WebSocketTestServer.shared.value()
        // The raw server answers `403 Forbidden<ESC>[2J<BEL><0x9B>31m`.
        let result = try await Tool.run(["chat", "listen", server.rawURL("/raw/refuse-hostile").absoluteString, "--count", "1", "--timeout", "20"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        // 0x9B alone is not UTF-8: it arrives as U+FFFD, which is harmless and printed as is.
        let refusal = #"server refused the WebSocket upgrade: HTTP 403 Forbidden\u{1B}[2J\u{7}"# + "\u{FFFD}31m"
        #expect(result.stderr == """
        state=connecting
        error: \(refusal)
        error: gave up: \(refusal)
        state=closed

        """)
        Self.expectClean(result)
    }

    @Test func chatListenNeverPrintsAMessageFromABrokenHandshake() async throws {
        let server = try await WebSocketTestServer.shared.value()
        // A 101 with a Sec-WebSocket-Protocol nobody asked for, then a GroupChat (issue 21 item 20).
        let result = try await Tool.run(["chat", "listen", server.rawURL("/raw/answer?case=protocol").absoluteString, "--count", "1", "--timeout", "10"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "printed the attacker's message: \(result.stdout)")
        #expect(result.stderr.contains(#"error: invalid WebSocket handshake answer: the server chose the subprotocol "chat" (none was offered)"#), "\(result.stderr)")
        #expect(!result.stderr.contains("state=open"))
    }

    // MARK: - emotions parse

    @Test func emotionsParseEscapesTheTablesKeys() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let table = folder.appending("emotion.json")
        let json = #"{"dict": {"evil\r\nemotion 0 1 forged\u001b[2J": "[坏]", "bell\u0007\u009b": "[铃]"}, "array": []}"#
        try Data(json.utf8).write(to: table)
        let result = try await Tool.run(["emotions", "parse", "[坏]x[铃]", "--table", table.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"""
        emotion 0 3 evil\r\nemotion 0 1 forged\u{1B}[2J
        text 3 1 x
        emotion 4 3 bell\u{7}\u{9B}

        """#)
        Self.expectClean(result)
    }

    @Test func emotionsParseEscapesAHostileKeyInADecodingError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let table = folder.appending("emotion.json")
        try Data(#"{"dict": {"k\u001b[31m\r\nforged": 5}}"#.utf8).write(to: table)
        let result = try await Tool.run(["emotions", "parse", "x", "--table", table.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: \(table.path): dict.k\\u{1B}[31m\\r\\nforged: "), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        Self.expectClean(result)
    }

    // MARK: - decode, gift-sim

    @Test func decodeWritesControlsInTheFileAsJSONEscapes() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("emotion.json")
        try Data(#"{"dict": {"k\u007f\u009b\u2028": "[\u0007\u0085\u2029]"}, "array": []}"#.utf8).write(to: file)
        let result = try await Tool.run(["decode", "emotions", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""k\u007f\u009b\u2028" : "[\u0007\u0085\u2029]""#), "\(result.stdout)")
        // Still the same JSON value.
        let printed = try JSONSerialization.jsonObject(with: result.output) as? [String: Any]
        #expect((printed?["dict"] as? [String: String]) == ["k\u{7F}\u{9B}\u{2028}": "[\u{07}\u{85}\u{2029}]"])
        Self.expectClean(result)
    }

    @Test func decodeEscapesAHostileKeyInItsError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("emotion.json")
        try Data(#"{"dict": {"k\r\nsource=fallback\u001b[2J": 1}}"#.utf8).write(to: file)
        let result = try await Tool.run(["decode", "emotions", file.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix(#"error: dict.k\r\nsource=fallback\u{1B}[2J: "#), "\(result.stderr)")
        Self.expectClean(result)
    }

    @Test func giftSimEscapesNamesAndLineErrorsFromTheScript() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let script = folder.appending("hostile.script")
        try Data("0 u\u{1B}[31m g\u{9B}\n".utf8).write(to: script)
        let shown = try await Tool.run(["gift-sim", script.path])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix(#"0 show track=0 key=u\u{1B}[31m:g\u{9B} count=1"#), "\(shown.stdout)")
        Self.expectClean(shown)

        try Data("\u{1B}]0;pwned\u{07} u g\n".utf8).write(to: script)
        let refused = try await Tool.run(["gift-sim", script.path])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: \(script.path): line 1: time \"\\u{1B}]0;pwned\\u{7}\" is not a whole number of milliseconds\n")
        Self.expectClean(refused)
    }
}
