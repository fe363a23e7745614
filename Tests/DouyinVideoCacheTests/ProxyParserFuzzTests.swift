import DouyinVideoCache
import Foundation
import Testing

/// The request head parser's defects found by its libFuzzer target (Fuzz/Targets/
/// HTTPRequestHead.swift) and by writing that target's RFC 9112 reference; each test holds
/// the input.
@Suite("Proxy request parsing, fuzzed")
struct ProxyParserFuzzTests {
    /// Every head the bytes hold and whether they ended in a refusal, fed `readSize` at a time.
    func outcomes(_ bytes: [UInt8], readSize: Int, maxHeadBytes: Int = 512) -> (targets: [String], refused: Bool) {
        var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
        var targets: [String] = []
        for start in stride(from: 0, to: bytes.count, by: readSize) {
            parser.append(Array(bytes[start..<min(start + readSize, bytes.count)]))
            while true {
                switch parser.next() {
                case .needMore: break
                case .request(let head): targets.append(head.target); continue
                case .refuse: return (targets, true)
                }
                break
            }
        }
        return (targets, false)
    }

    /// The fuzzer's input: a 511-byte head (limit 512) was accepted in one read but refused
    /// with 431 when it arrived a byte at a time, as soon as the buffer held the head and the
    /// blank line's first bytes (513 > 512).
    @Test func aHeadAtTheLimitArrivingByteByByteIsNotRefused() throws {
        let input = try #require(Data(base64Encoded: """
            R0VUIGh0dHA6Ly9oL3g6IEhUVFAvMS4xDQpIb3N0OiBoDQonOiAglwkvaC94IFQvRkFQVEjRMQ0KSEludG9zdDr/6Ojo6Ojo6OhpaWlpaWlpaWlpaWlpaWlpaWlp\
            aWlpaWlpaWlpaWlp6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo/2gNCic6ICBhCS9oL3ggSFRUUC9G0TINCkhJbnRvc3Q6eCBUL0ZBUFRI0TENCkhJbnRvc3Q6////////IG\
            gNCic6ICBhCS9oL0lu0TENCkhJbnRvc3Q6////////IGgNCic6ICBhCS8vRkFQVEjRMQ0KSEludG9zdDr///////8gaA0KJzogIGEJL2gveCBIVFRQL0bRMg0KSEludG9z\
            dDp4IFQvRkFQVEjRMQ0KSEludG9zdDpoDQonOiBQL0bRMg0KSEludG9zdDrNzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3NzWlpaWlpaWlpaWlpaWlpaWlp\
            aWlpaWlpaejo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6P9oDQonOiAgYQkvaC94IEhUVFAvRtEyDQpISW50b3N0OnggVC9GQVBUSNExDQpISW50b3N0Ov///////yBoDQonOiAgYQ\
            kvaC9Jbs3Nzc3Nzc3/////////////YXJhY3RlcmEJIA0KDQo=
            """))
        let bytes = [UInt8](input)
        #expect(bytes.count == 515)
        let whole = outcomes(bytes, readSize: bytes.count)
        #expect(whole.targets == ["http://h/x:"] && !whole.refused)
        let bytewise = outcomes(bytes, readSize: 1)
        #expect(bytewise.targets == whole.targets && bytewise.refused == whole.refused)
    }

    /// Found writing the reference: RFC 9110 §5.5 allows no control character but HTAB in a
    /// field value; the parser passed 0x01-0x08, 0x0B-0x1F and DEL on.
    @Test func aControlCharacterInAFieldValueIsRefused() {
        for control: UInt8 in [1, 8, 11, 31, 127] {
            let head = Array("GET /a HTTP/1.1\r\nHost: h\r\nX: a".utf8) + [control] + Array("b\r\n\r\n".utf8)
            #expect(outcomes(head, readSize: head.count).refused, "byte \(control)")
        }
        #expect(outcomes(Array("GET /a HTTP/1.1\r\nHost: h\r\nX: a\tb \u{e9}\r\n\r\n".utf8), readSize: 100) == (["/a"], false))
    }

    /// Found writing the reference: a request-target is origin-form or absolute-form of URI
    /// characters (RFC 9112 §3.2, RFC 3986); `"`, `<`, `{`, `\`, a bare `%`, a fragment and the
    /// asterisk form were accepted.
    @Test func aTargetThatIsNoURIIsRefused() {
        for target in ["/a\"b", "/<x>", "/{x}", "/a\\b", "/a%zz", "/a%4", "*", "?q", "a", "/a#f", "1http:x"] {
            #expect(outcomes(Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8), readSize: 100).refused, "\(target)")
        }
        for target in ["/a%4F?q=1&r=[x]", "http://h:8/x", "/t/http%3A%2F%2Fo%2Fv.mp4"] {
            #expect(outcomes(Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8), readSize: 100) == ([target], false), "\(target)")
        }
    }

    /// Found writing the reference: RFC 9112 §3.2 answers 400 to a second Host in any version
    /// and to a Host that is not `host[:port]`; HTTP/1.0 passed two, and any value passed.
    @Test func aSecondOrInvalidHostIsRefused() {
        #expect(outcomes(Array("GET /a HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n".utf8), readSize: 100).refused)
        for host in ["a b", "a/b", "h:8x", "[::1", "@h", "h%g1"] {
            #expect(outcomes(Array("GET /a HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8), readSize: 100).refused, "\(host)")
        }
        for host in ["127.0.0.1:8080", "[::1]:80", "localhost", "", "a-b.c%41:"] {
            #expect(outcomes(Array("GET /a HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8), readSize: 100) == (["/a"], false), "\(host)")
        }
    }
}
