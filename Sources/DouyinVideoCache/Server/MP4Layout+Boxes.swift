import Foundation

extension MP4Layout {
    /// The top-level boxes of an MP4 of `length` bytes, in order: each box's four-character
    /// type and its bytes (header included), read through `header(offset)` (up to 16 bytes at
    /// `offset`). Stops after 64 boxes, at the first header it cannot read, or at sizes that
    /// cannot be right; `video prefetch` finds `moov` and `mdat` wherever they are with it.
    package static func boxes(length: Int64, header: (Int64) async throws -> Data) async throws -> [(type: String, range: Range<Int64>, headerSize: Int64)] {
        var found: [(type: String, range: Range<Int64>, headerSize: Int64)] = []
        var offset: Int64 = 0
        while offset < length, found.count < 64 {
            let raw = [UInt8](try await header(offset).prefix(16))
            guard raw.count >= 8 else { break }
            let size32 = raw[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var size = Int64(size32)
            var headerSize: Int64 = 8
            if size32 == 1 {
                guard raw.count >= 16 else { break }
                let size64 = raw[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard size64 <= UInt64(Int64.max) else { break }
                size = Int64(size64)
                headerSize = 16
            } else if size32 == 0 {
                size = length - offset
            }
            guard size >= headerSize, size <= length - offset else { break }
            found.append((String(decoding: raw[4..<8], as: UTF8.self), offset..<(offset + size), headerSize))
            offset += size
        }
        return found
    }

    /// The movie's duration in seconds from the `mvhd` box inside `moov` (the whole moov box's
    /// bytes); `nil` when there is none or its timescale is 0.
    package static func duration(moov: Data) -> Double? {
        let bytes = [UInt8](moov)
        var offset = 8
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= bytes.count else { return nil }
            if type == "mvhd" {
                func read(_ at: Int, _ count: Int) -> UInt64? {
                    guard offset + at + count <= offset + size else { return nil }
                    return bytes[(offset + at)..<(offset + at + count)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                }
                // Version 0: 32-bit times; version 1: 64-bit (ISO 14496-12 §8.2.2).
                let isVersion1 = bytes[offset + 8] == 1
                guard let scale = read(isVersion1 ? 28 : 20, 4), scale > 0,
                      let units = read(isVersion1 ? 32 : 24, isVersion1 ? 8 : 4) else { return nil }
                return Double(units) / Double(scale)
            }
            offset += size
        }
        return nil
    }
}
