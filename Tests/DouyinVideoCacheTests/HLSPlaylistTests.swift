import DouyinVideoCache
import Foundation
import Testing

/// The RFC 8216 playlist parser and the proxy's rewrite, as pure values.
@Suite("HLS playlists")
struct HLSPlaylistTests {
    let master = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English, US",DEFAULT=YES,URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
        #EXT-X-STREAM-INF:BANDWIDTH=1500000,RESOLUTION=640x480,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud"
        hi/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=160x120
        lo/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="hi/iframes.m3u8"

        """

    @Test func aMasterPlaylistListsVariantsRenditionsAndIFrameStreams() throws {
        let playlist = try HLSPlaylist(master)
        #expect(playlist.isMaster && !playlist.isLive)
        #expect(playlist.variants.map(\.uri) == ["hi/index.m3u8", "lo/index.m3u8"])
        #expect(playlist.variants.map(\.bandwidth) == [1_500_000, 200_000])
        #expect(playlist.variants[0].attributes["CODECS"] == "avc1.4d401e,mp4a.40.2")
        #expect(playlist.variants[0].resolution == "640x480")
        #expect(playlist.renditions.map(\.uri) == ["audio/en.m3u8", nil])
        #expect(playlist.renditions[0].groupID == "aud")
        #expect(playlist.iFrameStreams.map(\.uri) == ["hi/iframes.m3u8"])
    }

    @Test func aMediaPlaylistCarriesDurationsRangesMapsAndKeys() throws {
        let playlist = try HLSPlaylist("""
            #EXTM3U\r
            #EXT-X-TARGETDURATION:4\r
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720"\r
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1",IV=0x01\r
            #EXTINF:4.000,first\r
            #EXT-X-BYTERANGE:1000@720\r
            all.mp4\r
            #EXTINF:3.5,\r
            #EXT-X-BYTERANGE:500\r
            all.mp4\r
            #EXT-X-KEY:METHOD=NONE\r
            #EXTINF:2,\r
            tail.m4s\r
            #EXT-X-ENDLIST\r
            """)
        #expect(!playlist.isMaster && !playlist.isLive && playlist.targetDuration == 4)
        #expect(playlist.segments.map(\.duration) == [4, 3.5, 2])
        #expect(playlist.segments.map { $0.byteRange?.range } == [720..<1720, 1720..<2220, nil])
        #expect(playlist.segments[0].map == HLSPlaylist.Map(uri: "init.mp4", byteRange: .init(length: 720, offset: 0)))
        #expect(playlist.segments[1].key?.uri == "https://keys.example/k1")
        #expect(playlist.segments[2].key == HLSPlaylist.Key(method: "NONE", uri: nil))
    }

    @Test func aPlaylistWithoutEndListIsLive() throws {
        #expect(try HLSPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n").isLive)
    }

    @Test(arguments: [
        "not a playlist",
        "#EXTM3U\nsegment-without-extinf.ts\n",
        "#EXTM3U\n#EXTINF:abc,\na.ts\n",
        "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:100\na.ts\n",
        "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:x@1\na.ts\n",
    ])
    func malformedPlaylistsNameTheirLine(_ text: String) {
        #expect(throws: VideoCacheError.self) { try HLSPlaylist(text) }
    }

    /// Every URI, in lines and in `URI="…"` of any tag, is resolved (RFC 3986 §5) and replaced;
    /// every other byte, CRLF and blank lines included, stays.
    @Test func theRewriteReplacesEveryURIAndKeepsEveryOtherByte() {
        let base = URL(string: "http://cdn.example/a/b/master.m3u8?sig=1")!
        let text = "#EXTM3U\r\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"../k.bin\"\r\n\r\n# a comment with URI=\"x\"\r\n"
            + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Eng,URI=\",URI=\"aud/en.m3u8\"\r\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"a,b\"\r\n/abs/v.m3u8\r\n#EXT-X-STREAM-INF:BANDWIDTH=2\r\nhttps://other.example/v2.m3u8\r\n"
            + "#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"10@0\"\r\n#EXTINF:1,\r\nseg1.ts?t=2\r\n"
        let rewritten = ProxyPlaylist.rewrite(text, base: base) { "<\($0.absoluteString)>" }
        #expect(rewritten == "#EXTM3U\r\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"<http://cdn.example/a/k.bin>\"\r\n\r\n# a comment with URI=\"x\"\r\n"
            + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Eng,URI=\",URI=\"<http://cdn.example/a/b/aud/en.m3u8>\"\r\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"a,b\"\r\n<http://cdn.example/abs/v.m3u8>\r\n#EXT-X-STREAM-INF:BANDWIDTH=2\r\n<https://other.example/v2.m3u8>\r\n"
            + "#EXT-X-MAP:URI=\"<http://cdn.example/a/b/init.mp4>\",BYTERANGE=\"10@0\"\r\n#EXTINF:1,\r\n<http://cdn.example/a/b/seg1.ts?t=2>\r\n")
    }

    @Test func playlistsAreKnownByTypeOrPath() {
        let url = URL(string: "http://h/v")!
        #expect(ProxyPlaylist.isPlaylist(mimeType: "Application/VND.Apple.MpegURL; charset=utf-8", url: url))
        #expect(ProxyPlaylist.isPlaylist(mimeType: "application/x-mpegurl", url: url))
        #expect(ProxyPlaylist.isPlaylist(mimeType: nil, url: URL(string: "http://h/a/index.M3U8?x=1")!))
        #expect(!ProxyPlaylist.isPlaylist(mimeType: "video/mp4", url: url))
        #expect(ProxyPlaylist.isPlaylist(mimeType: " \tapplication/x-mpegURL \t;charset=utf-8", url: url))
        #expect(ProxyPlaylist.isPlaylist(mimeType: "APPLICATION/X-MPEGURL", url: url))
        for other in ["application/x-mpegurlx", "application/x-mpegur", "xapplication/x-mpegurl", "application/x mpegurl", "", ";", " ",
                      "application/vnd.apple.mpegurl.x", "text/plain; application/x-mpegurl"] {
            #expect(!ProxyPlaylist.isPlaylist(mimeType: other, url: url), "\(other)")
        }
    }
}
