import DouyinSupport
import DouyinVideoCache
import Foundation

/// The bytes a player needs before the first frame of an MP4: the `moov` box wherever it is,
/// plus 1 s of media at the gear's bitrate.
///
/// Faststart file: `0..<(end of moov + 1 s)`. `moov` at the end: `0..<(end of the mdat header
/// + 1 s)` and the tail from the end of `mdat` to the end of the file. The player's read
/// position starts at the end of ``head``.
public struct StartBytes: Sendable, Hashable {
    /// The first bytes, from 0.
    public var head: Range<Int64>
    /// The tail holding `moov` in a file whose `mdat` comes first; `nil` for faststart.
    public var tail: Range<Int64>?

    /// Start bytes from their parts.
    public init(head: Range<Int64>, tail: Range<Int64>?) {
        self.head = head
        self.tail = tail
    }

    /// Every range, head first.
    public var ranges: [Range<Int64>] { [head] + (tail.map { [$0] } ?? []) }

    /// The total bytes.
    public var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    /// Where the media is, as far as starting needs to know.
    public enum Layout: Sendable, Hashable {
        /// `moov` first, ending at `moovEnd`.
        case faststart(moovEnd: Int64)
        /// `mdat` first, its payload from `mediaStart`; `moov` in `tail`.
        case moovAtEnd(mediaStart: Int64, tail: Range<Int64>)
    }

    /// The start bytes of a file of `length` bytes laid out as `layout`, for a gear of
    /// `bitRate` bits per second, with `seconds` of media (1 s by default).
    public init(layout: Layout, length: Int64, bitRate: Int, seconds: Duration = .seconds(1)) {
        let media = Int64((seconds.inSeconds * Double(max(1, bitRate)) / 8).rounded(.up))
        switch layout {
        case .faststart(let moovEnd):
            self.init(head: 0..<min(length, moovEnd + media), tail: nil)
        case .moovAtEnd(let mediaStart, let tail):
            self.init(head: 0..<min(tail.lowerBound, mediaStart + media), tail: tail)
        }
    }

    /// Reads the layout from top-level box headers through `DouyinVideoCache.MP4Layout.scan(length:header:)`
    /// (the package's one box walker), then the size of the box it stopped at: `moov` (its
    /// end) or `mdat` (where its payload begins). `header(offset)` answers up to 16 bytes at
    /// `offset`, `nil` when they are not available. `nil` when the layout cannot be told.
    public static func layout(length: Int64, header: (Int64) async throws -> Data?) async rethrows -> Layout? {
        var last: (offset: Int64, bytes: Data)?
        let scanned = try await MP4Layout.scan(length: length) { offset in
            let bytes = try await header(offset)
            if let bytes { last = (offset, bytes) }
            return bytes
        }
        guard let last, let box = boxSize(last.bytes, offset: last.offset, length: length) else { return nil }
        switch scanned {
        case .moovFirst:
            return .faststart(moovEnd: last.offset + box.size)
        case .moovAtEnd(let tail):
            return .moovAtEnd(mediaStart: last.offset + box.header, tail: tail)
        case .unknown:
            return nil
        }
    }

    /// A box's total size and header size from its first bytes (size 0: to the end of the file).
    private static func boxSize(_ data: Data, offset: Int64, length: Int64) -> (size: Int64, header: Int64)? {
        let raw = [UInt8](data.prefix(16))
        guard raw.count >= 8 else { return nil }
        let size32 = raw[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch size32 {
        case 0: return (length - offset, 8)
        case 1:
            guard raw.count >= 16 else { return nil }
            let size64 = raw[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard size64 <= UInt64(Int64.max) else { return nil }
            return (Int64(size64), 16)
        default: return (Int64(size32), 8)
        }
    }
}
