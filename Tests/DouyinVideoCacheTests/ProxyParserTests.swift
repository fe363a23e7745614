import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// The proxy's pure decisions: request heads, Range answers, routes. Microseconds, no sockets.
@Suite("Proxy request parsing")
struct ProxyParserTests {
    func parse(_ text: String, maxHeadBytes: Int = 16_384) -> HTTPRequestParser.Outcome {
        var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
        parser.append(Array(text.utf8))
        return parser.next()
    }

    @Test func aGetWithFieldsParses() {
        guard case .request(let head) = parse("GET /t/x HTTP/1.1\r\nHost: 127.0.0.1:80\r\nRange:  bytes=0-1 \r\n\r\n") else {
            Issue.record("not parsed")
            return
        }
        #expect(head.method == "GET" && head.target == "/t/x" && head.minorVersion == 1)
        #expect(head.value("range") == "bytes=0-1")
        #expect(head.keepAlive)
    }

    @Test func pipelinedRequestsComeOutOneByOne() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nHEAD /b HTTP/1.0\r\n\r\nGET /c".utf8))
        guard case .request(let first) = parser.next(), case .request(let second) = parser.next() else {
            Issue.record("pipelined heads not parsed")
            return
        }
        #expect(first.target == "/a" && second.target == "/b" && second.method == "HEAD" && !second.keepAlive)
        #expect(parser.next() == .needMore)
        #expect(parser.hasPartialHead)
    }

    /// A 10 MB head fed as it would arrive is refused once it passes the limit: the parser
    /// never holds much more than the limit plus one read.
    @Test func aTenMegabyteHeadIsRefusedWithinTheLimit() {
        var parser = HTTPRequestParser(maxHeadBytes: 16_384)
        parser.append(Array("GET /t/x HTTP/1.1\r\nHost: h\r\n".utf8))
        let line = Array("X-Filler: \(String(repeating: "a", count: 1000))\r\n".utf8)
        var fed = 0
        var outcome = parser.next()
        while outcome == .needMore, fed < 10 << 20 {
            parser.append(line)
            fed += line.count
            outcome = parser.next()
        }
        #expect(outcome == .refuse(status: 431, reason: "request head over 16384 bytes"))
        #expect(fed < 16_384 + 2 * line.count)
    }

    @Test(arguments: [
        "GET /t/x HTTP/1.1\r\nHost: h\r\nNoColonHere\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: h\r\n: empty name\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost : h\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n",
        "\u{01}\u{02}garbage\u{7f}\r\n\r\n",
        "GET\r\n\r\n",
        "GET  /t/x HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /t/x HTTX/1.1\r\nHost: h\r\n\r\n",
        "GET /t/x HTTP/1.1\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /t/x HTTP/1.1\r\nHost: h\nX: bare-lf\r\n\r\n",
    ])
    func malformedHeadsAreRefusedWith400(_ text: String) {
        guard case .refuse(let status, _) = parse(text) else {
            Issue.record("accepted: \(text.debugDescription)")
            return
        }
        #expect(status == 400)
    }

    /// Issue 36 item 5: lines ended by a bare LF (or a bare CR) never make the blank line the
    /// head waits for; the client got silence until the head deadline. Such a line is refused
    /// with 400 as soon as its byte arrives, fed whole or a byte at a time.
    @Test(arguments: [
        "GET /t/x HTTP/1.1\nHost: h\n\n",
        "GET /t/x HTTP/1.1\r\nHost: h\n\n",
        "GET /t/x HTTP/1.1\r\nHost: h\r\n\n",
        "GET /t/x HTTP/1.1\r\nHost: h\n\r\n",
        "GET /t/x HTTP/1.1\rHost: h\r\r",
        "GET /t/x HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n",
        "\n",
        "GET /t/x\u{0} HTTP/1.1\r\n",
    ])
    func aLineEndThatCanNeverEndTheHeadIsRefusedAtOnce(_ text: String) {
        #expect(parse(text) == .refuse(status: 400, reason: "malformed line ending"), "\(text.debugDescription)")
        var parser = HTTPRequestParser()
        var outcome = HTTPRequestParser.Outcome.needMore
        for byte in text.utf8 where outcome == .needMore {
            parser.append([byte])
            outcome = parser.next()
        }
        #expect(outcome == .refuse(status: 400, reason: "malformed line ending"), "a byte at a time: \(text.debugDescription)")
    }

    /// Issue 36 item 5: a method the proxy does not serve is 405 (the connection then answers
    /// with `Allow: GET, HEAD`), body or not; it was 400 when it carried a body.
    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "get", "BREW"])
    func aMethodOtherThanGetAndHeadIs405(_ method: String) {
        for fields in ["", "Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n"] {
            let outcome = parse("\(method) /t/x HTTP/1.1\r\nHost: h\r\n\(fields)\r\nhello")
            #expect(outcome == .refuse(status: 405, reason: "only GET and HEAD are served"), "\(method) \(fields)")
        }
        #expect(HTTPRequestParser.allowedMethods == "GET, HEAD")
    }

    @Test func http2IsRefusedWith505() {
        guard case .refuse(505, _) = parse("GET /t/x HTTP/2.0\r\nHost: h\r\n\r\n") else {
            Issue.record("HTTP/2.0 not refused with 505")
            return
        }
    }

    @Test(arguments: [
        (nil, RangeAnswer.whole),
        ("bytes=0-99", .partial(0..<100)),
        ("bytes=100-", .partial(100..<1000)),
        ("bytes=-300", .partial(700..<1000)),
        ("bytes=-5000", .partial(0..<1000)),
        ("bytes=990-5000", .partial(990..<1000)),
        ("bytes=999-999", .partial(999..<1000)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=1000-1200", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-1,5-9", .whole),
        ("bytes=5-1", .whole),
        ("items=0-1", .whole),
        ("bytes=x-1", .whole),
        ("BYTES=0-0", .partial(0..<1)),
    ] as [(String?, RangeAnswer)])
    func rangeAnswersFollowTheContract(_ header: String?, _ expected: RangeAnswer) {
        #expect(RangeAnswer(header: header, length: 1000) == expected)
    }

    @Test func anEmptyResourceSatisfiesNoRange() {
        #expect(RangeAnswer(header: "bytes=0-", length: 0) == .unsatisfiable)
        #expect(RangeAnswer(header: "bytes=-1", length: 0) == .unsatisfiable)
    }

    func route(_ target: String, host: String = "127.0.0.1:8080", method: String = "GET") -> ProxyRoute {
        ProxyRoute(head: HTTPRequestHead(method: method, target: target, minorVersion: 1, fields: [("host", host)]), token: "tok", port: 8080)
    }

    @Test func aPlayerURLRoundTrips() {
        let origin = URL(string: "http://example.com:81/a b/v.mp4?sig=1&x=%2F#frag")!
        let path = ProxyRoute.path(for: origin, token: "tok")
        #expect(path.dropFirst(5).allSatisfy { $0.isLetter || $0.isNumber || "-._~%".contains($0) })
        #expect(route(path) == .origin(origin))
        #expect(route(path, host: "LOCALHOST:8080") == .origin(origin))
    }

    @Test func refusalsNameTheirCause() {
        let path = ProxyRoute.path(for: URL(string: "http://example.com/v.mp4")!, token: "tok")
        #expect(status(route(path, host: "evil.example:8080")) == 403)
        #expect(status(route(path, host: "127.0.0.1:8081")) == 403)
        #expect(status(route(path, host: "127.0.0.1")) == 403)
        #expect(status(route("/bad" + path.dropFirst(4))) == 403)
        #expect(status(route("/" + path.dropFirst(5))) == 403)
        #expect(status(route(path, method: "POST")) == 405)
        #expect(status(route(ProxyRoute.path(for: URL(string: "ftp://example.com/v.mp4")!, token: "tok"))) == 400)
        #expect(status(route(ProxyRoute.path(for: URL(string: "file:///etc/passwd")!, token: "tok"))) == 400)
        #expect(status(route("/tok/http:%2F%2Fexample.com/v.mp4")) == 400)
    }

    /// The proxy decodes its path on bytes (`ProxyRoute.decode`), to exactly the bytes escaped
    /// when they are UTF-8 and to nothing otherwise: on seeded byte strings (valid UTF-8,
    /// broken sequences, surrogates, overlong forms) escaped in either hex case and mixed with
    /// bare text. Where the bytes are UTF-8, Foundation's `removingPercentEncoding`, which it
    /// replaced, agrees; where they are not, Foundation on Linux sometimes repairs them to
    /// U+FFFD (`%00%A9`) and sometimes refuses (`%A9`): the proxy always refuses.
    @Test func percentDecodingGivesTheEscapedBytesWhenTheyAreUTF8() {
        var generator = SeededRandom(seed: 0x9E_C0DE)
        let fragments: [[UInt8]] = [Array("a/?~ Z".utf8), Array("é".utf8), Array("😀".utf8), [0xC3], [0xA9], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xFF], [0]]
        for _ in 0..<5_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 5) {
                bytes += generator.next() % 3 == 0 ? [UInt8(truncatingIfNeeded: generator.next())] : fragments[Int(generator.next() % UInt64(fragments.count))]
            }
            var text = ""
            for byte in bytes {
                let bare = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                text += bare && generator.next() % 2 == 0 ? String(UnicodeScalar(byte)) : String(format: generator.next() % 2 == 0 ? "%%%02X" : "%%%02x", byte)
            }
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(ProxyRoute.decode(Substring(text)) == expected, "\(bytes)")
            if let expected, !expected.hasPrefix("\u{FEFF}") {
                #expect(text.removingPercentEncoding == expected, "\(bytes)")
            }
        }
        for malformed in ["%", "%2", "a%zz", "%4G", "%%41", "abc%"] {
            #expect(ProxyRoute.decode(Substring(malformed)) == nil, "\(malformed)")
            #expect(malformed.removingPercentEncoding == nil, "\(malformed)")
        }
    }

    /// A first position too large for Int64 is past every length, never taken for a suffix
    /// (it was answered as `-5`): alone it is a 416, before a smaller last position the spec is
    /// invalid and ignored (RFC 9110 §14.1.1). A suffix is a suffix with whitespace before it
    /// too, so no early fetch is named for it (found by review: `bytes= -500` started a cold
    /// fetch at 2⁵⁰ − 500).
    @Test func rangesAtInt64sEdgeAndSuffixesAfterWhitespace() {
        #expect(RangeAnswer(header: "bytes=99999999999999999999-5", length: 100) == .whole)
        #expect(RangeAnswer(header: "bytes=99999999999999999999-", length: 100) == .unsatisfiable)
        #expect(RangeAnswer(header: "bytes=5-99999999999999999999", length: 100) == .partial(5..<100))
        #expect(RangeAnswer(header: "bytes= -50", length: 100) == .partial(50..<100))
        #expect(RangeAnswer.bytesNamed(by: "bytes= -500") == nil)
        #expect(RangeAnswer.bytesNamed(by: "bytes=-500") == nil)
        #expect(RangeAnswer.bytesNamed(by: "bytes= 10-20") == 10..<21)
        #expect(RangeAnswer.bytesNamed(by: "bytes=99999999999999999999-5") == nil)
    }

    func status(_ route: ProxyRoute) -> Int? {
        if case .refuse(let status, _) = route { return status }
        return nil
    }
}
