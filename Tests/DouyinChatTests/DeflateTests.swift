import DouyinChat
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// permessage-deflate (RFC 7692) on the package's own client: negotiation, compression of what it
/// sends, inflation of what it gets, and a decompression bomb bounded by the message size limit.
@Suite("permessage-deflate", .serialized)
struct DeflateTests {
    let server: WebSocketTestServer
    init() async throws { server = try await WebSocketTestServer.shared.value() }

    @Test func theAnswerDecidesWindowsAndContextTakeover() throws {
        #expect(try DeflateNegotiation.accepted(nil) == nil)
        #expect(try DeflateNegotiation.accepted("permessage-deflate") == DeflateNegotiation())
        let capped = try #require(try DeflateNegotiation.accepted("Permessage-Deflate; server_no_context_takeover; client_max_window_bits=9; server_max_window_bits=\"10\""))
        #expect(capped.serverNoContextTakeover && capped.clientMaxWindowBits == 9 && capped.serverMaxWindowBits == 10)
        for bad in ["", "permessage-deflate; client_max_window_bits=7", "permessage-deflate; server_max_window_bits", "permessage-deflate; client_max_window_bits=010",
                    "permessage-deflate; server_no_context_takeover=1", "x-other", "permessage-deflate; a=1"] {
            #expect(throws: ChatError.self, "\(bad)") { try DeflateNegotiation.accepted(bad) }
        }
    }

    /// The client offers permessage-deflate and, once accepted, sends the message compressed
    /// (RSV1, fewer bytes on the wire) so that it inflates to exactly what was sent.
    @Test(arguments: ["", "; client_max_window_bits=9", "; client_no_context_takeover"])
    func whatTheClientSendsIsCompressed(answer: String) async throws {
        let connection = try await POSIXWebSocketTransport().connect(to: server.rawURL("/raw/checkdeflate?answer=\(answer.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"), headers: [:])
        let text = String(repeating: "[微笑] 群聊消息 hello ", count: 400)
        try await connection.send(text: text)
        let reply = try await firstMessage(connection)
        await connection.close(code: 1000, reason: "")
        guard case .text(let seen)? = reply else { Issue.record("no reply"); return }
        #expect(seen.hasPrefix("rsv1=1 "), "\(seen)")
        #expect(seen.contains("sha1=\(SHA1.hex(Array(text.utf8)))"), "\(seen)")
        let wire = Int(seen.split(separator: " ")[1].dropFirst("wire=".count)) ?? .max
        #expect(wire < text.utf8.count / 10, "\(wire) bytes on the wire for \(text.utf8.count)")
        #expect(seen.hasSuffix("offer=permessage-deflate; client_no_context_takeover; client_max_window_bits"))
    }

    /// A server keeping its compression context: the second message refers back into the first.
    @Test func compressedMessagesWithContextTakeoverInflate() async throws {
        let connection = try await POSIXWebSocketTransport().connect(to: server.rawURL("/raw/deflated?count=1000"), headers: [:])
        var messages = connection.messages.makeAsyncIterator()
        let expected = WebSocketMessage.text(String(repeating: "hello ", count: 1000))
        #expect(try await messages.next() == expected)
        #expect(try await messages.next() == expected)
        await connection.close(code: 1000, reason: "")
    }

    /// 1 GiB of "a" in one ~1 MiB compressed frame: inflating stops at the 16 MiB limit (plus
    /// at most one 64 KiB chunk), the client closes with 1009, and the stream ends with the
    /// typed error; nothing near 1 GiB is ever held.
    @Test func aDecompressionBombStopsAtTheMessageSizeLimit() async throws {
        let limit = 16 << 20
        let connection = try await POSIXWebSocketTransport(configuration: .init(maximumMessageSize: limit)).connect(to: server.rawURL("/raw/bomb?mib=1024"), headers: [:])
        let end = await streamEnd(connection)
        #expect(end.messages.isEmpty)
        guard case .messageTooBig(let size, let reported)? = end.error as? ChatError else { Issue.record("\(String(describing: end.error))"); return }
        #expect(reported == limit)
        #expect(size > UInt64(limit) && size <= UInt64(limit + (64 << 10)), "stopped after \(size) inflated bytes")
        #expect(try await server.lastClose("/raw/bomb") == "1009")
    }

    /// A ~1 KiB frame that inflates to 1 MiB against a 64 KiB limit.
    @Test func aSmallFrameOverASmallLimitFailsCleanly() async throws {
        let connection = try await POSIXWebSocketTransport(configuration: .init(maximumMessageSize: 64 << 10)).connect(to: server.rawURL("/raw/deflated?count=200000"), headers: [:])
        let end = await streamEnd(connection)
        guard case .messageTooBig(let size, _)? = end.error as? ChatError else { Issue.record("\(String(describing: end.error))"); return }
        #expect(size <= UInt64(128 << 10))
    }
}
