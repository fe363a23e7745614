import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

@Suite("CRC32C")
struct CRC32CTests {
    /// The check value of the CRC catalogue and the vectors of RFC 3720, appendix B.4.
    @Test func publishedVectors() {
        #expect(CRC32C.checksum("123456789") == 0xE306_9283)
        #expect(CRC32C.checksum(Data(repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum(Data(repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Data((0..<32).map { UInt8($0) })) == 0x46DD_794E)
        #expect(CRC32C.checksum(Data((0..<32).map { UInt8(31 - $0) })) == 0x113F_DB5C)
        #expect(CRC32C.checksum(Data()) == 0)
    }

    /// The eight-bytes-a-step path equals a plain bit-at-a-time CRC at every length and
    /// alignment, and checksumming in pieces with a seed equals checksumming at once.
    @Test func equalsBitwiseReferenceInPieces() {
        var random = SeededRandom(seed: 0xC3C3)
        for _ in 0..<300 {
            let bytes = random.bytes(Int.random(in: 0..<200, using: &random))
            let whole = CRC32C.checksum(Data(bytes))
            #expect(whole == bitwise(bytes), "\(random)")
            let cut = Int.random(in: 0...bytes.count, using: &random)
            let first = CRC32C.checksum(Data(bytes[..<cut]))
            #expect(CRC32C.checksum(Data(bytes[cut...]), seed: first) == whole, "\(random)")
        }
    }

    /// One flipped bit anywhere changes the checksum (what the caches rely on).
    @Test func everySingleBitFlipIsDetected() {
        var random = SeededRandom(seed: 7)
        let bytes = random.bytes(512)
        let original = CRC32C.checksum(Data(bytes))
        for bit in 0..<(bytes.count * 8) {
            var damaged = bytes
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(CRC32C.checksum(Data(damaged)) != original)
        }
    }

    private func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }
}
