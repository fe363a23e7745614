#if canImport(CDouyinCRC32C)
import CDouyinCRC32C
#endif
import Foundation

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum the caches keep beside
/// stored bytes to tell a damaged or truncated file from the one they wrote.
///
/// Not a cryptographic hash: it catches truncation, bit rot and a file overwritten by another
/// writer, which is what the caches need, at a cost small next to the read itself.
/// `CRC32C.checksum("123456789") == 0xE3069283`.
///
/// Computed by the processor's CRC instructions when it has them (SSE 4.2 on x86-64, three
/// interleaved streams, about 20 GB/s here; the ARMv8 CRC extension on arm64), decided once at
/// run time by the C target `CDouyinCRC32C`; otherwise, and as the reference the tests compare
/// against, eight bytes at a time from tables in Swift (``software(_:seed:)``, about 2 GB/s).
/// A build without the C module (the fuzz build compiles these sources alone) uses the tables.
package enum CRC32C {
    /// Whether `checksum` uses the processor's instructions on this machine. Setting
    /// `DOUYIN_CRC32C_SOFTWARE=1` in the environment forces the tables (the benchmarks' "before",
    /// and a way to run the fallback on a machine that has the instructions).
    package static let usesHardware: Bool = {
        #if canImport(CDouyinCRC32C)
        ProcessInfo.processInfo.environment["DOUYIN_CRC32C_SOFTWARE"] != "1" && douyin_crc32c_hardware_available() != 0
        #else
        false
        #endif
    }()

    /// The checksum of `bytes`, continuing from `seed` (the checksum of the bytes before them;
    /// 0 for none), so a stream can be checksummed in pieces.
    package static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        #if canImport(CDouyinCRC32C)
        if usesHardware { return douyin_crc32c_hardware(seed, bytes.baseAddress, bytes.count) }
        #endif
        return software(bytes, seed: seed)
    }

    /// The table implementation: the fallback where the processor has no CRC instructions,
    /// and the reference the hardware path is tested against.
    package static func software(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        var offset = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { t in
            while count - offset >= 8 {
                let low = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                    | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
                let high = UInt32(bytes[offset + 4]) | UInt32(bytes[offset + 5]) << 8
                    | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 24
                let word = crc ^ low
                crc = t[7 * 256 + Int(word & 0xff)] ^ t[6 * 256 + Int((word >> 8) & 0xff)]
                    ^ t[5 * 256 + Int((word >> 16) & 0xff)] ^ t[4 * 256 + Int(word >> 24)]
                    ^ t[3 * 256 + Int(high & 0xff)] ^ t[2 * 256 + Int((high >> 8) & 0xff)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xff)] ^ t[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = t[Int((crc ^ UInt32(bytes[offset])) & 0xff)] ^ (crc >> 8)
                offset += 1
            }
        }
        return ~crc
    }

    /// The checksum of `data`, continuing from `seed`.
    package static func checksum(_ data: Data, seed: UInt32 = 0) -> UInt32 {
        data.withUnsafeBytes { checksum($0, seed: seed) }
    }

    /// The checksum of a string's UTF-8 bytes.
    package static func checksum(_ text: String) -> UInt32 {
        checksum(Data(text.utf8))
    }

    /// Eight 256-entry tables: table k maps a byte to its CRC shifted through k more zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] = tables[Int(previous & 0xff)] ^ (previous >> 8)
            }
        }
        return tables
    }()
}
