import DouyinSupport
import Foundation

extension DiskCache {
    /// The layout of one entry's file: a 16-byte header, then the bytes as stored.
    ///
    /// | offset | size | field |
    /// |---|---|---|
    /// | 0 | 4 | magic `DKC1` |
    /// | 4 | 4 | CRC-32C of the key's UTF-8, continued over the bytes (little-endian) |
    /// | 8 | 8 | the bytes' length (little-endian) |
    ///
    /// The header makes each file check itself on every read, with no index that a crash could
    /// leave behind it: a truncated or extended file fails the length, a changed byte the
    /// checksum, and a file moved under another entry's name the key in the checksum.
    enum EntryFile {
        static let headerSize = 16
        private static let magic: UInt32 = 0x3143_4B44  // "DKC1" read little-endian.

        /// The checksum of `bytes` stored under `key`.
        static func checksum(_ bytes: UnsafeRawBufferPointer, key: String) -> UInt32 {
            var keyBytes = Array(key.utf8)
            let seed = keyBytes.withUnsafeMutableBytes { CRC32C.checksum(UnsafeRawBufferPointer($0)) }
            return CRC32C.checksum(bytes, seed: seed)
        }

        /// The header for `data` stored under `key`.
        static func header(for data: Data, key: String) -> Data {
            let crc = data.withUnsafeBytes { checksum($0, key: key) }
            var header = Data(capacity: headerSize)
            withUnsafeBytes(of: magic.littleEndian) { header.append(contentsOf: $0) }
            withUnsafeBytes(of: crc.littleEndian) { header.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(data.count).littleEndian) { header.append(contentsOf: $0) }
            return header
        }

        /// How many bytes a verified read moves per call: the checksum runs over each piece
        /// while it is still in the processor's cache, so the bytes cross memory once.
        static let readPiece = 1 << 20

        /// `length` bytes after the header of the open file `descriptor`, checksummed piece by
        /// piece as they arrive; `nil` when the file ends early or the checksum is not
        /// `checksum`. The caller bounds `length` (from `fstat`) before calling.
        static func readVerified(
            _ length: Int, checksum: UInt32, key: String, from descriptor: Int32, files: FileIO
        ) throws(SystemError) -> Data? {
            var keyBytes = Array(key.utf8)
            var crc = keyBytes.withUnsafeMutableBytes { CRC32C.checksum(UnsafeRawBufferPointer($0)) }
            var data = Data(count: length)
            let failure: SystemError? = data.withUnsafeMutableBytes { buffer in
                var done = 0
                while done < length {
                    let want = min(readPiece, length - done)
                    let got = files.syscalls.pread(descriptor, buffer.baseAddress! + done, want, off_t(headerSize + done))
                    if got < 0 {
                        if errno == EINTR { continue }
                        return SystemError(call: "pread", code: errno)
                    }
                    // Shorter than its fstat size: cut behind our back, not the entry written.
                    if got == 0 { return SystemError(call: "pread", code: EIO) }
                    crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[done..<done + got]), seed: crc)
                    done += got
                }
                return nil
            }
            if let failure { throw failure }
            return crc == checksum ? data : nil
        }

        /// A header read back: the length and checksum it promises, or `nil` when it is not one.
        static func parse(_ header: Data) -> (length: Int64, checksum: UInt32)? {
            guard header.count == headerSize else { return nil }
            let bytes = [UInt8](header)
            func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
                var value: T = 0
                for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[offset + index]) }
                return value
            }
            guard load(0, as: UInt32.self) == magic else { return nil }
            let length = load(8, as: UInt64.self)
            // Lengths past Int64 come from damage, never from a store.
            guard length <= UInt64(Int64.max) else { return nil }
            return (Int64(length), load(4, as: UInt32.self))
        }
    }
}
