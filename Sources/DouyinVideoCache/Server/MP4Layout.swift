import Foundation

/// Where an MP4's `moov` box (the index a player needs before the first frame) lies, read
/// from the top-level box headers in the file's first bytes.
public enum MP4Layout: Sendable, Hashable {
    /// `moov` comes before `mdat` ("faststart"): the first bytes are enough to start.
    case moovFirst
    /// `mdat` comes first; `moov` lies in `tail` (from the end of `mdat` to the end of the file),
    /// which a player fetches before it can start.
    case moovAtEnd(tail: Range<Int64>)
    /// Not decidable from these bytes: not an MP4, a box header past the bytes held, or sizes
    /// that cannot be right.
    case unknown

    /// Reads top-level boxes from the start of a file of `length` bytes (when known), where
    /// `header(offset)` returns up to 16 bytes at `offset` (fewer at the end of what is held,
    /// `nil` when nothing is held there). Stops at `moov` or `mdat`, after 64 boxes, or at the
    /// first header it cannot read.
    ///
    /// Sizes are checked, not trusted: a box smaller than its header, one ending past the
    /// length, or a 64-bit size that overflows gives ``unknown``.
    public static func scan(length: Int64?, header: (Int64) async throws -> Data?) async rethrows -> MP4Layout {
        var offset: Int64 = 0
        for _ in 0..<64 {
            guard let bytes = try await header(offset), bytes.count >= 8 else { return .unknown }
            let raw = [UInt8](bytes.prefix(16))
            let size32 = raw[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = String(decoding: raw[4..<8], as: UTF8.self)
            var size: Int64
            var headerSize: Int64 = 8
            switch size32 {
            case 1:
                guard raw.count >= 16 else { return .unknown }
                let size64 = raw[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard size64 <= UInt64(Int64.max) else { return .unknown }
                size = Int64(size64)
                headerSize = 16
            case 0:
                // "Extends to the end of the file".
                guard let length else { return .unknown }
                size = length - offset
            default:
                size = Int64(size32)
            }
            guard size >= headerSize else { return .unknown }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow else { return .unknown }
            if let length, end > length { return .unknown }
            switch type {
            case "moov":
                return .moovFirst
            case "mdat":
                guard let length, end < length else { return .unknown }
                return .moovAtEnd(tail: end..<length)
            default:
                // The first box of an MP4 is ftyp; anything else is not one we understand.
                if offset == 0, type != "ftyp" { return .unknown }
                offset = end
            }
        }
        return .unknown
    }
}
