// The caches' files on disk, rotted, planted or truncated: DouyinVideoCache's durable range
// index (ResourceMetadata.load, rangesOnDisk) and DouyinCache's entry files and manifest
// (DiskCache). Properties: a video index that loads is consistent and every range it claims
// lies within its data file and its length; a disk entry reads back exactly when a reference
// check of its header and CRC-32C (written here) accepts it, and then as the bytes stored;
// manifest times stay within what the cache accepts.
//
// Input: byte 0 bit 0 chooses. 0: bytes 1-4 the video data file's size (big endian), the rest
// the index file. 1: bytes 1-2 the disk entry file's length n (big endian), the next n bytes
// that file, the rest the manifest.
@testable import DouyinCache
import DouyinSupport
@testable import DouyinVideoCache
import Foundation

private let key = "0123456789abcdef0123456789abcdef"
private let directory: String = {
    let path = NSTemporaryDirectory() + "douyin-fuzz-index-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// With FUZZ_SEED_DIR set, writes a valid video index and disk entry there first (run.sh's
/// seeds: the encoder's own output, so the fuzzer starts from the real format).
@_cdecl("LLVMFuzzerInitialize")
public func indexFilesInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>) -> CInt {
    guard let seeds = ProcessInfo.processInfo.environment["FUZZ_SEED_DIR"] else { return 0 }
    var ranges = ByteRangeSet()
    ranges.insert(0..<300_000)
    ranges.insert(600_000..<700_000)
    let metadata = ResourceMetadata(url: "http://origin.test/v.mp4", dataFileName: key + ".mp4",
                                    info: VideoContentInfo(length: 1_000_000, mimeType: "video/mp4", etag: "\"e\""),
                                    ranges: ranges, lastAccess: 1.5e9, checksums: [0: 7, 2: 9])
    let json = try! JSONEncoder().encode(metadata)
    _ = FileManager.default.createFile(atPath: seeds + "/video-index", contents: Data([0, 0, 0x0F, 0x42, 0x40]) + json)
    let stored = Data("a cached image's bytes".utf8)
    let entry = DiskCache.EntryFile.header(for: stored, key: key) + stored
    let manifest = Data("\(key) 1500000000 1400000000\nbad line\n".utf8)
    _ = FileManager.default.createFile(atPath: seeds + "/disk-entry", contents: Data([1, 0, UInt8(entry.count)]) + entry + manifest)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func indexFilesFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = bytes(data, count)
    guard let mode = input.first else { return 0 }
    if mode & 1 == 0 {
        guard input.count >= 5 else { return 0 }
        videoIndex(size: Int64(input[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }), index: Data(input.dropFirst(5)))
    } else {
        guard input.count >= 3 else { return 0 }
        let length = min(Int(input[1]) << 8 | Int(input[2]), input.count - 3)
        diskCache(entry: Array(input[3..<(3 + length)]), manifest: Data(input.dropFirst(3 + length)))
    }
    return 0
}

private func videoIndex(size: Int64, index: Data) {
    let files = FileIO()
    let dataPath = directory + "/" + key + ".mp4", indexPath = directory + "/" + key + ".meta"
    _ = FileManager.default.createFile(atPath: indexPath, contents: index)
    _ = FileManager.default.createFile(atPath: dataPath, contents: nil)
    require(truncate(dataPath, off_t(size)) == 0, "truncate")
    guard let metadata = ResourceMetadata.load(from: indexPath, key: key, files: files) else { return }
    require(metadata.isConsistent && EntryFiles.isDataFileName(metadata.dataFileName, of: key), "loaded \(metadata)")
    let limit = metadata.info?.length ?? ResourceMetadata.maxLength
    var previous: Int64 = -1
    for range in metadata.rangesOnDisk(in: directory, files: files).ranges {
        require(range.lowerBound > previous && range.lowerBound < range.upperBound && range.upperBound <= size && range.upperBound <= limit,
                "range \(range) claimed of a \(size)-byte file, length \(limit), after \(previous)")
        previous = range.upperBound
    }
    require(metadata.checksums.keys.allSatisfy { $0 >= 0 && $0 <= limit / ResourceMetadata.blockSize }, "checksums \(metadata.checksums.keys.sorted())")
}

private func diskCache(entry: [UInt8], manifest: Data) {
    _ = FileManager.default.createFile(atPath: directory + "/" + key, contents: Data(entry))
    _ = FileManager.default.createFile(atPath: directory + "/" + DiskCache.manifestName, contents: manifest)
    guard let cache = try? DiskCache(directory: URL(fileURLWithPath: directory)) else { require(false, "no cache"); return }
    let read = cache.data(forKey: key)
    let expected = referenceEntry(entry)
    require(read.map { [UInt8]($0) } == expected, "read \(read.map { [UInt8]($0) } ?? []) from \(entry), reference \(expected ?? [])")
    let now = Date().timeIntervalSince1970
    for (name, times) in cache.readManifest(now: now) {
        require(DiskCache.isValid(name) && (0...(now + 86_400)).contains(times.lastAccess) && (0...(now + 86_400)).contains(times.stored),
                "manifest \(name) \(times)")
    }
}

/// An entry file is a 16-byte header (magic "DKC1", the CRC-32C of the key then the bytes,
/// the bytes' length; little endian) and exactly that many bytes whose checksum matches.
private func referenceEntry(_ file: [UInt8]) -> [UInt8]? {
    guard file.count >= 16 else { return nil }
    func little(_ range: Range<Int>) -> UInt64 { file[range].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    let stored = Array(file[16...])
    guard little(0..<4) == 0x3143_4B44, little(8..<16) == UInt64(stored.count),
          UInt32(little(4..<8)) == crc32c(Array(key.utf8) + stored) else { return nil }
    return stored
}

/// CRC-32C (Castagnoli), bit by bit: the definition, not the fast path under test.
private func crc32c(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? crc >> 1 ^ 0x82F6_3B78 : crc >> 1 }
    }
    return ~crc
}
