import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// Damaged files, hostile directories and a disk that fails: every one is a miss or a typed
/// error, never a wrong byte and never a write outside the directory.
@Suite("DiskCache integrity")
struct DiskCacheIntegrityTests {
    let key = k("https://cdn.example.test/cover.webp")

    /// A 2 MB body that differs at every position that matters.
    func body(_ count: Int = 2_000_000, seed: UInt64 = 1) -> Data {
        var random = SeededRandom(seed: seed)
        return Data(random.bytes(count))
    }

    // MARK: - Case 3: a damaged file is a miss, removed

    @Test func twoTierCacheServesATruncatedFileRegression() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        try cache.store(body(), forKey: key)
        // `truncate -s 1000000`: main served the first 1,000,000 bytes as the entry.
        let handle = try FileHandle(forWritingTo: folder.appending(key))
        try handle.truncate(atOffset: 1_000_000)
        try handle.close()
        #expect(cache.data(forKey: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(key).path))
        #expect(cache.count == 0 && cache.totalSize == 0)
    }

    @Test func aFlippedByteOfTheSameLengthIsAMiss() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        let bytes = body()
        try cache.store(bytes, forKey: key)
        for offset in [16, 16 + 999_999, 16 + bytes.count - 1, 5 /* the checksum itself */] {
            try cache.store(bytes, forKey: key)
            var file = try Data(contentsOf: folder.appending(key))
            file[offset] ^= 0x01
            try file.write(to: folder.appending(key))
            #expect(cache.data(forKey: key) == nil, "byte \(offset)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending(key).path))
        }
    }

    @Test func damageFoundAfterARestartIsAMissToo() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let bytes = body(100_000)
        do { try DiskCache(directory: folder.url).store(bytes, forKey: key) }
        // Extended by one byte, and a second entry cut inside its header.
        try FileHandle(forWritingTo: folder.appending(key)).seekToEnd()
        let handle = try FileHandle(forWritingTo: folder.appending(key))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        try Data("DKC1".utf8).write(to: folder.appending(k("short")))
        let cache = try DiskCache(directory: folder.url)
        #expect(cache.data(forKey: key) == nil)
        #expect(cache.data(forKey: k("short")) == nil)
        #expect(cache.count == 0)
        // Stored again, it reads back whole.
        try cache.store(bytes, forKey: key)
        #expect(cache.data(forKey: key) == bytes)
    }

    @Test func aFileMovedUnderAnotherKeyIsAMiss() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        try cache.store(Data("a's bytes".utf8), forKey: k("a"))
        try cache.store(Data("b's bytes".utf8), forKey: k("b"))
        // Same length, valid header, but written for another key.
        try FileManager.default.removeItem(at: folder.appending(k("b")))
        try FileManager.default.copyItem(at: folder.appending(k("a")), to: folder.appending(k("b")))
        #expect(cache.data(forKey: k("b")) == nil)
        #expect(cache.data(forKey: k("a")) == Data("a's bytes".utf8))
    }

    // MARK: - Siblings: a hostile directory

    @Test func aSymlinkPlantedInTheDirectoryIsNeverFollowed() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.appending("cache"), victim = folder.appending("victim")
        try Data("victim's own bytes".utf8).write(to: victim)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Planted before the cache opens: not indexed, and a store replaces the link itself.
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(k("x")), withDestinationURL: victim)
        let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 22))
        #expect(cache.count == 0)
        #expect(cache.data(forKey: k("x")) == nil)
        try cache.store(Data("new".utf8), forKey: k("x"))
        #expect(try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(k("x")).path)[.type] as? FileAttributeType == .typeRegular)
        // Planted over an indexed entry: the read refuses it and removes the link, not its target.
        try FileManager.default.removeItem(at: directory.appendingPathComponent(k("x")))
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(k("x")), withDestinationURL: victim)
        #expect(cache.data(forKey: k("x")) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(k("x")).path))
        // Trims and removeAll never reach through a link either.
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(k("y")), withDestinationURL: victim)
        try cache.store(Data(count: 20), forKey: k("z"))
        cache.removeAll()
        #expect(try Data(contentsOf: victim) == Data("victim's own bytes".utf8))
    }

    @Test func filesTheCacheDidNotNameAreLeftAlone() throws {
        // `cache get --dir ~` indexed every plain-named file and trimmed them over the limit.
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let foreign = ["notes.txt", "a", "ABCDEF0123456789ABCDEF0123456789"]
        for name in foreign { try Data(count: 1000).write(to: folder.appending(name)) }
        let cache = try DiskCache(directory: folder.url, configuration: .init(sizeLimit: 100))
        #expect(cache.count == 0 && cache.totalSize == 0)
        for index in 0..<5 { try cache.store(Data(count: 60), forKey: k("\(index)")) }
        cache.trim(toSize: 0)
        cache.removeAll()
        for name in foreign { #expect(FileManager.default.fileExists(atPath: folder.appending(name).path), "\(name)") }
    }

    /// Review finding: opening the cache deleted any `.tmp-*` file (so `--dir ~` removed
    /// `~/.tmp-notes`, and a second process removed the first's write in flight) and any short
    /// md5-named file it had never written.
    @Test func openingLeavesForeignAndInFlightTemporaryFilesAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let foreignTemporary = folder.appending(".tmp-notes")
        let inFlight = folder.appending(".tmp-\(UUID().uuidString)")
        let abandoned = folder.appending(".tmp-\(UUID().uuidString)")
        let shortMD5Named = folder.appending(k("short"))
        for url in [foreignTemporary, inFlight, abandoned] { try Data(count: 10).write(to: url) }
        try Data(count: 10).write(to: shortMD5Named)
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: abandoned.path)
        let cache = try DiskCache(directory: folder.url)
        #expect(cache.count == 0)
        #expect(FileManager.default.fileExists(atPath: foreignTemporary.path))
        #expect(FileManager.default.fileExists(atPath: inFlight.path))
        #expect(FileManager.default.fileExists(atPath: shortMD5Named.path))
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
    }

    /// Review finding: a second process sharing the directory stored a new, valid version of a
    /// key with another length; the first took it for damage and deleted it.
    @Test func aNewVersionStoredByAnotherInstanceIsServedNotDeleted() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let first = try DiskCache(directory: folder.url)
        try first.store(Data(repeating: 1, count: 100), forKey: k("shared"))
        let second = try DiskCache(directory: folder.url)
        try second.store(Data(repeating: 2, count: 250), forKey: k("shared"))
        #expect(first.data(forKey: k("shared")) == Data(repeating: 2, count: 250))
        #expect(first.totalSize == 250)
        #expect(second.data(forKey: k("shared")) == Data(repeating: 2, count: 250))
    }

    @Test func aManifestNamingOtherFilesOrHoldingImpossibleTimesIsIgnored() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.appending("cache")
        let clock = ManualClock()
        do {
            let cache = try DiskCache(directory: directory, clock: CacheClock { clock.now })
            for name in ["a", "b", "c"] {
                try cache.store(Data(count: 10), forKey: k(name))
                clock.advance(by: 1)
            }
        }
        try Data("outside".utf8).write(to: folder.appending("victim"))
        let hostile = """
            ../victim 1 1
            /etc/passwd 1 1
            \(k("a")) 1e308 1e308
            \(k("b")) nan inf
            \(k("c")) -5 99999999999999999999999
            \(k("missing")) 1 1
            \(String(repeating: "9", count: 5000)) 1 1
            """
        try Data(hostile.utf8).write(to: directory.appendingPathComponent(".manifest"))
        let cache = try DiskCache(directory: directory, configuration: .init(ageLimit: .seconds(3600)), clock: CacheClock { clock.now })
        // Only the three files present; their impossible times fall back to the files' own.
        #expect(cache.count == 3 && cache.totalSize == 30)
        #expect(Set(cache.keysByRecency) == Set(["a", "b", "c"].map(k)))
        for name in ["a", "b", "c"] { #expect(cache.data(forKey: k(name)) == Data(count: 10), "\(name)") }
        cache.removeAll()
        #expect(try Data(contentsOf: folder.appending("victim")) == Data("outside".utf8))
    }

    // MARK: - A disk that fails (a mock: no real disk fills or errs on demand)

    /// A cache whose file calls go through `faults`.
    func faultyCache(_ folder: TemporaryDirectory, _ faults: FaultInjector) throws -> DiskCache {
        try DiskCache(
            directory: folder.url, configuration: .init(), clock: .system,
            files: FileIO(syscalls: Syscalls.system.injecting(faults))
        )
    }

    func leftovers(_ folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != ".manifest" }
    }

    @Test func aFullDiskIsATypedErrorAndLeavesTheCacheAsItWas() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try faultyCache(folder, faults)
        try cache.store(Data("old".utf8), forKey: key)
        faults.fail(.pwrite, with: ENOSPC)
        #expect(throws: CacheError.diskFull(path: folder.url.path, errno: ENOSPC)) { try cache.store(body(), forKey: key) }
        faults.fail(.pwrite, with: EDQUOT)
        #expect(throws: CacheError.diskFull(path: folder.url.path, errno: EDQUOT)) { try cache.store(body(), forKey: key) }
        faults.heal(.pwrite)
        // The old entry is intact and no partial file is left.
        #expect(cache.data(forKey: key) == Data("old".utf8))
        #expect(try leftovers(folder) == [key])
        #expect(cache.totalSize == 3)
    }

    @Test func anIOErrorWritingOrRenamingIsUnwritableWithItsErrno() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try faultyCache(folder, faults)
        faults.fail(.pwrite, with: EIO, times: 1)
        #expect(throws: CacheError.unwritable(path: folder.url.path, errno: EIO)) { try cache.store(body(1000), forKey: key) }
        faults.fail(.rename, with: EIO, times: 1)
        #expect(throws: CacheError.unwritable(path: folder.url.path, errno: EIO)) { try cache.store(body(1000), forKey: key) }
        faults.fail(.open, with: EACCES, times: 1)
        #expect(throws: CacheError.unwritable(path: folder.url.path, errno: EACCES)) { try cache.store(body(1000), forKey: key) }
        #expect(try leftovers(folder).isEmpty)
        #expect(cache.count == 0)
        #expect(CacheError.unwritable(path: "/c", errno: EIO).description.contains("Input/output error"))
    }

    @Test func shortWritesAndInterruptedCallsStillStoreEveryByte() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try faultyCache(folder, faults)
        let bytes = body(100_003)
        faults.limitTransfers(to: 4093)
        faults.fail(.pwrite, with: EINTR, times: 3)
        faults.fail(.open, with: EINTR, times: 2)
        try cache.store(bytes, forKey: key)
        #expect(faults.injectedCount(.pwrite) == 3 && faults.injectedCount(.open) == 2)
        faults.fail(.pread, with: EINTR, times: 3)
        #expect(cache.data(forKey: key) == bytes)
        #expect(faults.injectedCount(.pread) == 3)
    }

    @Test func anIOErrorReadingIsAMissAndTheEntryIsFetchedAgain() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try faultyCache(folder, faults)
        let bytes = body(10_000)
        try cache.store(bytes, forKey: key)
        faults.fail(.pread, with: EIO, times: 1)
        #expect(cache.data(forKey: key) == nil)
        #expect(cache.count == 0)
        try cache.store(bytes, forKey: key)
        #expect(cache.data(forKey: key) == bytes)
    }
}
