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

    /// The hardware path (SSE 4.2 here) equals the table reference on seeded random data at
    /// every length 0–4096 and every alignment 0–15, from a random seed: the byte-wise head
    /// before an 8-byte boundary, the three-stream rounds from 768 bytes, and every tail.
    @Test func hardwareEqualsTheTableAtEveryLengthAndAlignment() {
        var random = SeededRandom(seed: 0x5EED_C3C3)
        let buffer = random.bytes(4096 + 16)
        let seed = UInt32.random(in: 0...UInt32.max, using: &random)
        var mismatches: [String] = []
        buffer.withUnsafeBytes { all in
            for alignment in 0..<16 {
                for length in 0...4096 {
                    let bytes = UnsafeRawBufferPointer(rebasing: all[alignment..<alignment + length])
                    if CRC32C.checksum(bytes, seed: seed) != CRC32C.software(bytes, seed: seed), mismatches.count < 10 {
                        mismatches.append("length \(length) at alignment \(alignment)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches) \(random) hardware=\(CRC32C.usesHardware)")
    }

    /// Lengths around the long rounds (3 × 8 KB) and past several of them, whole and in pieces.
    @Test func hardwareEqualsTheTableOnLongBuffersAndInPieces() {
        var random = SeededRandom(seed: 0xB16)
        let big = random.bytes((1 << 20) + 13)
        big.withUnsafeBytes { all in
            for length in [24_575, 24_576, 24_577, 25_344, 49_159, 100_003, (1 << 20) + 13] {
                let offset = Int.random(in: 0...7, using: &random)
                let bytes = UnsafeRawBufferPointer(rebasing: all[offset..<min(all.count, offset + length)])
                let whole = CRC32C.software(bytes)
                #expect(CRC32C.checksum(bytes) == whole, "length \(bytes.count) \(random)")
                let cut = Int.random(in: 0...bytes.count, using: &random)
                let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<cut]))
                #expect(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[cut...]), seed: first) == whole, "cut \(cut) \(random)")
            }
        }
    }

    /// RFC 3720's vectors through the table alone too (the path a machine without CRC
    /// instructions takes), and this machine's answer to whether it has them.
    @Test func theTableAloneMeetsThePublishedVectors() {
        func software(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { CRC32C.software($0) } }
        #expect(software(Array("123456789".utf8)) == 0xE306_9283)
        #expect(software([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(software([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(software((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(software((0..<32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
        #if arch(x86_64)
        // Every x86-64 machine this project runs on has SSE 4.2 (this one: AMD EPYC).
        #expect(CRC32C.usesHardware)
        #endif
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
