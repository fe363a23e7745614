import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the cache persists about one resource beside its data file.
struct ResourceMetadata: Codable, Sendable, Equatable {
    /// The format of this file; a different number is read as no metadata.
    static let currentVersion = 1

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

    /// The indexed ranges that the data file in `directory` can really hold: a file shorter
    /// than its index (truncated, replaced, deleted) is trusted over the index.
    func rangesOnDisk(in directory: String) -> ByteRangeSet {
        var info = stat()
        guard stat(directory + "/" + dataFileName, &info) == 0 else { return ByteRangeSet() }
        var held = ranges
        held.removeAll(from: Int64(info.st_size))
        return held
    }

    /// Reads a metadata file; `nil` when absent, unreadable or of another version.
    static func load(from path: String) -> ResourceMetadata? {
        guard let data = FileManager.default.contents(atPath: path),
              let metadata = try? JSONDecoder().decode(ResourceMetadata.self, from: data),
              metadata.version == currentVersion else { return nil }
        return metadata
    }

    /// Replaces the file at `path` atomically and durably: temp file, fsync, rename, fsync of
    /// the directory, so a kill at any point leaves either the old or the new index.
    func save(to path: String) throws(SparseFile.Failure) {
        let encoded: Data
        do { encoded = try JSONEncoder().encode(self) } catch { throw SparseFile.Failure(code: EINVAL) }
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let file = try SparseFile(path: temporary)
        do {
            try file.write(encoded, at: 0)
            try file.sync()
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw SparseFile.Failure(code: code)
        }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
