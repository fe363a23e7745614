import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 21 item 12 and the DiskCache items left from round 2: bounded reads, refused stores,
/// a deterministic eviction order, durable writes.
@Suite("DiskCache limits")
struct DiskCacheLimitTests {
    let key = k("https://cdn.example.test/grown.webp")

    /// The C library's calls, with the bytes each `pread` asks for summed and the largest one
    /// kept: counting, not a fault (the seam is the only place reads can be seen).
    final class ReadCounter: Sendable {
        private let counts = LockedBox((total: 0, largest: 0))
        var total: Int { counts.withLock { $0.total } }
        var largest: Int { counts.withLock { $0.largest } }
        func reset() { counts.withLock { $0 = (0, 0) } }

        var files: FileIO {
            var calls = Syscalls.system
            calls.pread = { [self] fd, buffer, count, offset in
                counts.withLock { $0 = ($0.total + count, max($0.largest, count)) }
                return Syscalls.system.pread(fd, buffer, count, offset)
            }
            return FileIO(syscalls: calls)
        }
    }

    /// Makes `path` a sparse file of `size` bytes whose header agrees with it (the magic and
    /// checksum of the entry stored there, the length patched to `size - 16`).
    func grow(_ path: String, to size: Int64) throws {
        let descriptor = open(path, O_RDWR)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        var length = UInt64(size - 16).littleEndian
        #expect(pwrite(descriptor, &length, 8, 8) == 8)
    }

    /// Item 12: an entry grown to 640 MB with its header made to agree took 674 MB of memory and
    /// 5 s to read. It is refused from `fstat`, a miss, and removed, with nothing but nothing
    /// read; after a restart it is not indexed at all.
    @Test func anEntryGrownPastTheLimitIsRefusedFromItsSizeUnread() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let counter = ReadCounter()
        let cache = try DiskCache(directory: folder.url, configuration: .init(), clock: .system, files: counter.files)
        try cache.store(Data("a small cover".utf8), forKey: key)
        let path = folder.appending(key).path
        try grow(path, to: 640 << 20)
        counter.reset()
        #expect(cache.data(forKey: key) == nil)
        #expect(counter.total == 0, "read \(counter.total) bytes of a 640 MB entry")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.count == 0 && cache.totalSize == 0)
        // Found so at start-up: damage, removed unread, never in the index or its total.
        try cache.store(Data("a small cover".utf8), forKey: key)
        try grow(path, to: 640 << 20)
        counter.reset()
        let restarted = try DiskCache(directory: folder.url, configuration: .init(), clock: .system, files: counter.files)
        #expect(restarted.count == 0 && restarted.totalSize == 0)
        #expect(restarted.data(forKey: key) == nil)
        #expect(counter.total < 4096, "the manifest at most")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The per-entry maximum of the configuration bounds a read the same way, and a read under
    /// it is checksummed piece by piece: no single read is the whole entry.
    @Test func aReadIsBoundedByTheEntryMaximumAndComesInPieces() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let counter = ReadCounter()
        var random = SeededRandom(seed: 12)
        let bytes = Data(random.bytes(3_000_017))
        let cache = try DiskCache(directory: folder.url, configuration: .init(maximumEntrySize: 4_000_000), clock: .system, files: counter.files)
        try cache.store(bytes, forKey: key)
        counter.reset()
        #expect(cache.data(forKey: key) == bytes, "\(random)")
        #expect(counter.total == 16 + bytes.count)
        #expect(counter.largest <= 1 << 20)
        try grow(folder.appending(key).path, to: 16 + 4_000_001)
        counter.reset()
        #expect(cache.data(forKey: key) == nil)
        #expect(counter.total == 0)
    }

    /// Left from round 2: a store over the limit went in, then the trim removed it with every
    /// other entry. It is refused, typed, and the cache is as it was.
    @Test func aStoreOverTheLimitIsRefusedAndChangesNothing() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url, configuration: .init(sizeLimit: 1000))
        try cache.store(Data(count: 400), forKey: k("kept"))
        #expect(throws: CacheError.entryTooLarge(key: key, size: 1001, limit: 1000)) { try cache.store(Data(count: 1001), forKey: key) }
        #expect(cache.data(forKey: k("kept")) == Data(count: 400))
        #expect(cache.count == 1 && cache.totalSize == 400)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != ".manifest" } == [k("kept")])
        // The per-entry maximum alone (no size limit) bounds a store too.
        let bounded = try DiskCache(directory: folder.appending("b"), configuration: .init(sizeLimit: 0, maximumEntrySize: 100))
        #expect(throws: CacheError.entryTooLarge(key: key, size: 101, limit: 100)) { try bounded.store(Data(count: 101), forKey: key) }
        try bounded.store(Data(count: 100), forKey: key)
        #expect(bounded.totalSize == 100)
        #expect(DiskCache.Configuration(sizeLimit: 0, maximumEntrySize: nil).largestEntry == .max)
    }

    /// Left from round 2: with every use at one clock reading (a coarse clock, a burst of
    /// stores), which entries a trim removed depended on a dictionary's order. Ties now go by
    /// the order of use: oldest use out first, and a read counts as a use.
    @Test func equalTimesEvictInTheOrderOfUse() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()  // never advanced: every time is equal
        let cache = try DiskCache(directory: folder.url, configuration: .init(sizeLimit: 1000), clock: CacheClock { clock.now })
        let names = (0..<9).map { "entry \($0)" }
        for name in names { try cache.store(Data(count: 100), forKey: k(name)) }
        _ = cache.data(forKey: k("entry 0"))  // now the most recent
        _ = cache.data(forKey: k("entry 1"))
        try cache.store(Data(count: 250), forKey: k("new"))  // 1150 > 1000: trim to ≤ 900
        // 2, 3 and 4 were used least recently: out, in that order, until 850 remain.
        let expected = ["entry 5", "entry 6", "entry 7", "entry 8", "entry 0", "entry 1", "new"].map(k)
        #expect(cache.keysByRecency == expected)
        for name in ["entry 2", "entry 3", "entry 4"] { #expect(!FileManager.default.fileExists(atPath: folder.appending(k(name)).path)) }
    }

    /// Left from round 2: an entry was renamed into place without its bytes flushed, so a power
    /// cut could leave a valid name over blocks never written. The store now fsyncs first; a
    /// failed fsync (a mock: no real disk fails one on demand) fails the store and changes
    /// nothing.
    @Test func aStoreFlushesBeforeTheRenameAndAFailedFlushFailsIt() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try DiskCache(directory: folder.url, configuration: .init(), clock: .system, files: FileIO(syscalls: Syscalls.system.injecting(faults)))
        try cache.store(Data("old".utf8), forKey: key)
        faults.fail(.fsync, with: EIO, times: 1)
        #expect(throws: CacheError.unwritable(path: folder.url.path, errno: EIO)) { try cache.store(Data("new".utf8), forKey: key) }
        #expect(faults.injectedCount(.fsync) == 1)
        #expect(cache.data(forKey: key) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != ".manifest" } == [key])
    }
}
