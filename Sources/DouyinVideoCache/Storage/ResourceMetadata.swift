import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the cache persists about one resource beside its data file.
struct ResourceMetadata: Codable, Sendable, Equatable {
    /// The format of this file; a different number is read as no metadata.
    /// 2: block checksums added; a version 1 index (no checksums) is dropped.
    static let currentVersion = 2
    /// The bytes one checksum covers: block `b` is `[b * blockSize, (b + 1) * blockSize)`.
    static let blockSize: Int64 = 256 << 10
    /// The largest resource the cache takes, in bytes: 1 TiB. Every length and offset read from
    /// an index or an origin is checked against it before any arithmetic, so sums of ranges and
    /// block numbers can never overflow.
    static let maxLength: Int64 = 1 << 40

    var version = ResourceMetadata.currentVersion
    /// The URL the entry was first made for (informational; the key names the files).
    var url: String
    /// The data file's name in the cache directory (md5 of the key, plus the URL's extension).
    var dataFileName: String
    /// What the origin said, once it has answered.
    var info: VideoContentInfo?
    /// The bytes of the data file that are real (fsynced before this was written).
    var ranges: ByteRangeSet
    /// Seconds since 1970 of the last read, for LRU eviction.
    var lastAccess: Double
    /// CRC-32C of the held bytes of each block holding any, in offset order: checked the first
    /// time the block is read after a restart, so a damaged file is refetched, never served.
    var checksums: [Int64: UInt32] = [:]

    /// The indexed ranges that a data file of `size` bytes can really hold: a file shorter than
    /// its index (truncated, replaced) is trusted over the index.
    func ranges(inFileOf size: Int64) -> ByteRangeSet {
        var held = ranges
        held.removeAll(from: size)
        return held
    }

    /// The indexed ranges that the data file in `directory` can really hold; none when it is
    /// absent or not a regular file (a symlink planted there is not followed).
    func rangesOnDisk(in directory: String, files: FileIO) -> ByteRangeSet {
        guard let file = try? SparseFile(path: directory + "/" + dataFileName, create: false, writable: false, files: files) else { return ByteRangeSet() }
        return ranges(inFileOf: file.size())
    }

    /// Reads the metadata file of `key`; `nil` when absent, unreadable, of another version, not
    /// a regular file (a planted symlink is not followed), or naming a data file other than one
    /// ``EntryFiles`` derives from the key: a name is never taken from disk on trust.
    static func load(from path: String, key: String, files: FileIO) -> ResourceMetadata? {
        guard let file = try? SparseFile(path: path, create: false, writable: false, files: files),
              let data = try? file.read(at: 0, count: Int(clamping: min(file.size(), 16 << 20))),
              let metadata = try? JSONDecoder().decode(ResourceMetadata.self, from: data),
              metadata.version == currentVersion,
              metadata.isConsistent,
              EntryFiles.isDataFileName(metadata.dataFileName, of: key) else { return nil }
        return metadata
    }

    /// Whether every number in this index is one the cache could have written, checked before
    /// any is used: a length in `0...maxLength`; ranges with `0 ≤ start < end ≤ length` (or
    /// `maxLength` when the length is unknown), sorted, apart; held bytes only with content
    /// info to validate them against; checksums only of blocks inside that span; a finite
    /// access time. An index that fails any of these (damaged, edited, or written by another
    /// version) contradicts itself and is discarded whole: nothing in it is trusted.
    var isConsistent: Bool {
        let limit = info?.length ?? Self.maxLength
        guard (0...Self.maxLength).contains(limit), lastAccess.isFinite else { return false }
        var previousEnd: Int64 = -1
        for range in ranges.ranges {
            guard range.lowerBound > previousEnd, range.lowerBound >= 0, range.lowerBound < range.upperBound,
                  range.upperBound <= limit else { return false }
            previousEnd = range.upperBound
        }
        guard ranges.isEmpty || info != nil else { return false }
        let lastBlock = limit / Self.blockSize
        return checksums.keys.allSatisfy { (0...lastBlock).contains($0) }
    }

    /// Replaces the file at `path` atomically and durably: temp file, fsync, rename, fsync of
    /// the directory, so a kill at any point leaves either the old or the new index.
    func save(to path: String, files: FileIO) throws(SystemError) {
        let encoded: Data
        do { encoded = try JSONEncoder().encode(self) } catch { throw SystemError(call: "JSONEncoder", code: EINVAL) }
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let file = try SparseFile(path: temporary, files: files)
            try file.write(encoded, at: 0)
            try file.sync()
            try files.rename(temporary, to: path)
        } catch {
            files.remove(temporary)
            throw error
        }
        if let directory = try? files.open((path as NSString).deletingLastPathComponent, flags: O_RDONLY) {
            try? files.sync(directory)
            files.close(directory)
        }
    }
}
