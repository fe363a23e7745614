import DouyinVideoCache
import Foundation
import Testing

/// Defects of the origin framing rules and the HLS playlist code found by their libFuzzer
/// targets (Fuzz/Targets/ResponseFraming.swift, HLSPlaylist.swift) and by writing those
/// targets' references; each test holds the input.
@Suite("Framing and playlists, fuzzed")
struct FramingAndPlaylistFuzzTests {
    let request = OriginRequest(url: URL(string: "http://o.invalid/v")!, range: 0..<10)

    /// The target's input `200\n10\nchunked`: a 200 with both Transfer-Encoding and
    /// Content-Length was taken as 10 bytes long; RFC 9112 §6.3 makes the pair an error (the
    /// two framings disagree, which is how responses are smuggled), as ResponseFraming does.
    @Test func transferEncodingBesideContentLengthIsRefused() {
        for status in [200, 206] {
            let headers = ["content-length": "10", "transfer-encoding": "chunked", "content-range": "bytes 0-9/10"]
            #expect(throws: VideoCacheError.self, "\(status)") { try OriginAnswer.parse(status: status, headers: headers, for: request) }
        }
        #expect(throws: Never.self) { try OriginAnswer.parse(status: 200, headers: ["transfer-encoding": "chunked"], for: request) }
    }

    /// Found writing the reference: OWS around a value is spaces and tabs (RFC 9110 §5.6.3); a
    /// no-break space or an ideographic space around a number was trimmed as if it were one.
    @Test func onlySpacesAndTabsAroundANumberAreTrimmed() throws {
        #expect(throws: VideoCacheError.self) { try OriginAnswer.parse(status: 200, headers: ["content-length": "\u{A0}10"], for: request) }
        #expect(throws: VideoCacheError.self) {
            try OriginAnswer.parse(status: 206, headers: ["content-range": "bytes 0-9/10\u{3000}"], for: request)
        }
        let answer = try OriginAnswer.parse(status: 206, headers: ["content-range": " \tbytes 0-9/10\t", "content-length": "\t10 "], for: request)
        #expect(answer.framing == BodyFraming(offset: 0, end: 10))
    }

    let base = URL(string: "http://origin.test/hls/a/list.m3u8")!
    func rewrite(_ text: String) -> String { ProxyPlaylist.rewrite(text, base: base) { "<P:\($0.absoluteString)>" } }

    /// The target's seed: spaces around a URI line (`  low/index.m3u8 `) were dropped with the
    /// URI replaced, where every byte but the URI is kept.
    @Test func spacesAroundAURILineAreKept() {
        #expect(rewrite("#EXTM3U\r\n  low/index.m3u8 \t\r\n") == "#EXTM3U\r\n  <P:http://origin.test/hls/a/low/index.m3u8> \t\r\n")
    }

    /// Found writing the reference: a combining mark after a delimiter joined it into one
    /// Character, so `#\u{301}…` (a comment to a player) was rewritten as a URI line and
    /// `URI="\u{301}…"` was not seen as quoted. Delimiters are now compared as scalars.
    @Test func aCombiningMarkAfterADelimiterDoesNotHideIt() {
        #expect(rewrite("#\u{301}comment\n") == "#\u{301}comment\n")
        #expect(rewrite("#EXT-X-KEY:METHOD=X,URI=\"\u{301}k\"\n").contains("URI=\"<P:"))
        #expect(rewrite("#EXT-X-KEY:METHOD=X,URI=\"k\"\u{301},IV=1\n") == "#EXT-X-KEY:METHOD=X,URI=\"<P:http://origin.test/hls/a/k>\"\u{301},IV=1\n")
    }

    /// Found writing the target: `#EXT-X-BYTERANGE:<Int64.max>@<Int64.max>` trapped when the
    /// next range's start (offset + length) was computed. Both are now within the largest
    /// resource the cache takes, so their sum cannot overflow.
    @Test func aByteRangeAtInt64sEdgeIsRefusedNotATrap() {
        let text = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807\nseg.ts\n#EXT-X-ENDLIST\n"
        #expect(throws: VideoCacheError.self) { try HLSPlaylist(text) }
        let edge = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:1099511627776@0\nseg.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:1\nseg.ts\n"
        #expect((try? HLSPlaylist(edge))?.segments.last?.byteRange?.offset == 1 << 40)
    }
}
