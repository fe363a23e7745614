import DouyinCache
import DouyinTestSupport
import Foundation
import Testing

@Suite("MD5")
struct MD5Tests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func rfc1321TestSuite(input: String, digest: String) {
        #expect(MD5.hex(input) == digest)
    }

    @Test func everyPrefixLengthMatchesHashlib() throws {
        let bytes = [UInt8](try Fixtures.data("md5/random.bin"))
        let lines = try String(contentsOf: Fixtures.url("md5/prefix-digests.txt"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1001)
        for line in lines {
            let fields = line.split(separator: " ")
            let length = try #require(Int(fields[0]))
            #expect(MD5.hex(bytes[0..<length]) == String(fields[1]), "length \(length)")
        }
    }

    @Test func streamingInPiecesEqualsOneShot() throws {
        let data = try Fixtures.data("md5/random.bin")
        for piece in [1, 3, 63, 64, 65, 200] {
            var digest = MD5()
            var offset = 0
            while offset < data.count {
                digest.update(data[offset..<min(offset + piece, data.count)])
                offset += piece
            }
            #expect(digest.finalizeHex() == MD5.hex(data), "pieces of \(piece)")
        }
    }

    @Test func finalizeDoesNotConsumeTheState() {
        var digest = MD5()
        digest.update(Array("ab".utf8))
        _ = digest.finalize()
        digest.update(Array("c".utf8))
        #expect(digest.finalizeHex() == "900150983cd24fb0d6963f7d28e17f72")
    }
}
