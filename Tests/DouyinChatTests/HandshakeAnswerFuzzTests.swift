import DouyinChat
import Foundation
import Testing

/// Opening-handshake answers the handshake's libFuzzer target (Fuzz/Targets/HandshakeAnswer.swift)
/// found opening a connection its RFC reference refuses; each test holds the input.
@Suite("Handshake answers, fuzzed")
struct HandshakeAnswerFuzzTests {
    let key = "dGhlIHNhbXBsZSBub25jZQ=="
    let valid = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    func opens(_ head: String, deflate: Bool = true) -> Bool {
        do {
            let answer = try HandshakeAnswer(head: head)
            _ = try answer.validate(key: key, protocols: ["chat"], offeredDeflate: deflate)
            _ = try answer.deflate
            return true
        } catch {
            return false
        }
    }

    /// The fuzzer's input: NUL and DEL in the reason phrase and `\u{1}` and NULs in a field name
    /// (`Sec-W\u{1}\0\0\0cket-Protocol`) opened the connection. RFC 9110 allows no control
    /// character in a name, a value or the reason phrase.
    @Test func controlCharactersInTheHeadAreRefused() {
        #expect(opens(valid))
        let found = "HTTP/1.1 101 Switc\u{7F}\0\0\0\0\0\0\0tocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-W\u{1}\0\0\0cket-Protocol: chat\r\n"
            + "SeceSb-Wocket-Extensions: permessage-deflate; server\u{1}no_context_takeover"
        #expect(!opens(found))
        #expect(!opens(valid + "\r\nX-A: a\u{1}b"))
        #expect(!opens(valid + "\r\nX(A): b"))
        #expect(!opens(valid.replacingOccurrences(of: "Switching", with: "Swi\u{7F}tching")))
        #expect(opens(valid + "\r\nX-A: a\tb \u{E9}"))
        // A refusal's reason phrase decides nothing: a 403 whose phrase carries an escape
        // sequence is still read as the 403 it is (and not retried as a broken answer).
        #expect((try? HandshakeAnswer(head: "HTTP/1.1 403 Forbidden\u{1B}[2J\u{7}"))?.status == 403)
    }

    /// Found writing the reference: the version is `HTTP/1.` and one digit; `HTTP/1.1x` opened.
    @Test func aVersionThatIsNotOneDigitIsRefused() {
        #expect(!opens(valid.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.1x")))
        #expect(!opens(valid.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.")))
        #expect(opens(valid.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.0")))
    }

    /// Found writing the reference: a parameter `name=` with no value was taken as `name`, and
    /// quotes were trimmed however many there were (`"12`, `""12""`); RFC 6455 §9.1 allows a
    /// token or one quoted string.
    @Test func aMalformedDeflateParameterIsRefused() {
        for parameters in ["server_no_context_takeover=", "server_max_window_bits=\"12", "server_max_window_bits=\"\"12\"\"", "client_max_window_bits=", "x y"] {
            #expect(!opens(valid + "\r\nSec-WebSocket-Extensions: permessage-deflate; \(parameters)"), "\(parameters)")
        }
        #expect(opens(valid + "\r\nSec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=\"12\"; client_max_window_bits = 10"))
    }
}
