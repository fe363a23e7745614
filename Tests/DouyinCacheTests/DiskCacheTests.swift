import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// The md5 key of a short name, so tests read as names.
func k(_ name: String) -> String { MD5.hex(name) }

@Suite("DiskCache")
struct DiskCacheTests {
    let key = MD5.hex("https://cdn.example.test/a.jpeg")

    @Test func storesAndReadsOneFileNamedByTheKey() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.appending("cache"))
        try cache.store(Data("hello".utf8), forKey: key)
        #expect(cache.data(forKey: key) == Data("hello".utf8))
        // The file holds a 16-byte header (length, checksum), then the bytes.
        let file = try Data(contentsOf: folder.appending("cache/\(key)"))
        #expect(file.count == 21 && file.suffix(5) == Data("hello".utf8))
        #expect(cache.totalSize == 5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.appending("cache").path)
        #expect(leftovers == [key])  // No temporary file stays behind a completed write.
    }

    @Test func replacingKeepsTheTotalRight() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        try cache.store(Data(count: 100), forKey: key)
        try cache.store(Data(count: 30), forKey: key)
        #expect(cache.totalSize == 30)
        #expect(cache.count == 1)
    }

    @Test func trimRemovesLeastRecentlyUsedFirst() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try DiskCache(directory: folder.url, configuration: .init(sizeLimit: 1000), clock: CacheClock { clock.now })
        for name in ["a", "b", "c", "d"] {
            try cache.store(Data(count: 300), forKey: k(name))
            clock.advance(by: 1)
        }
        // 1200 > 1000: trims to ≤ 900 by dropping the oldest, a.
        #expect(cache.keysByRecency == ["b", "c", "d"].map(k))
        _ = cache.data(forKey: k("b"))  // b becomes the most recent
        clock.advance(by: 1)
        try cache.store(Data(count: 300), forKey: k("e"))
        #expect(cache.keysByRecency == ["d", "b", "e"].map(k))
        #expect(!FileManager.default.fileExists(atPath: folder.appending(k("c")).path))
        #expect(cache.totalSize == 900)
    }

    @Test func restartKeepsTheIndexAndTheRecencyOrder() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()
        do {
            let cache = try DiskCache(directory: folder.url, clock: CacheClock { clock.now })
            for name in ["a", "b", "c"] {
                try cache.store(Data(count: 10), forKey: k(name))
                clock.advance(by: 1)
            }
            _ = cache.data(forKey: k("a"))
        }  // Released: the manifest is written.
        let reopened = try DiskCache(directory: folder.url, configuration: .init(sizeLimit: 25), clock: CacheClock { clock.now })
        #expect(reopened.totalSize == 30)
        #expect(reopened.keysByRecency == ["b", "c", "a"].map(k))
        reopened.trim(toSize: 20)
        #expect(reopened.keysByRecency == ["c", "a"].map(k))
        #expect(reopened.data(forKey: k("a")) == Data(count: 10))
    }

    @Test func restartWithoutAManifestStillIndexesEveryFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        do {
            let cache = try DiskCache(directory: folder.url)
            for name in ["x1", "x2"] { try cache.store(Data(count: 7), forKey: k(name)) }
        }
        try FileManager.default.removeItem(at: folder.appending(".manifest"))
        // A write a crash interrupted an hour ago, under the name the cache gives temporary files.
        let crashed = folder.appending(".tmp-\(UUID().uuidString)")
        try Data(count: 3).write(to: crashed)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: crashed.path)
        let cache = try DiskCache(directory: folder.url)
        #expect(cache.count == 2 && cache.totalSize == 14)
        #expect(cache.data(forKey: k("x2")) == Data(count: 7))
        #expect(!FileManager.default.fileExists(atPath: crashed.path))
    }

    @Test func directoryDeletedWhileRunningIsRecreated() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.appending("cache"))
        try cache.store(Data(count: 10), forKey: k("old"))
        try FileManager.default.removeItem(at: folder.appending("cache"))
        #expect(cache.data(forKey: k("old")) == nil)
        try cache.store(Data("new".utf8), forKey: key)
        #expect(cache.data(forKey: key) == Data("new".utf8))
        #expect(cache.totalSize == 3)
    }

    @Test func unwritableDirectoryIsATypedError() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // A regular file where a parent directory should be: unwritable even for root.
        try Data("not a directory".utf8).write(to: folder.appending("blocker"))
        #expect {
            _ = try DiskCache(directory: folder.appending("blocker/cache"))
        } throws: { error in
            guard case CacheError.unwritable(let path, let code) = error else { return false }
            return path.hasSuffix("blocker/cache") && code != 0
        }

        let cache = try DiskCache(directory: folder.appending("cache"))
        try FileManager.default.removeItem(at: folder.appending("cache"))
        try Data().write(to: folder.appending("cache"))  // The directory becomes a file under the cache.
        #expect(throws: CacheError.self) { try cache.store(Data(count: 4), forKey: key) }
        #expect(cache.count == 0)
    }

    @Test(arguments: [
        "", "../escape", "a/b", ".manifest", "spaces here", String(repeating: "x", count: 300),
        // Plain names and near-md5s: a cache pointed at a directory of other files never names them.
        "a", "notes.txt", "0CC175B9C0F1B6A831C399E269772661", "0cc175b9c0f1b6a831c399e26977266", "0cc175b9c0f1b6a831c399e2697726611",
        "0cc175b9c0f1b6a831c399e26977266g",
    ])
    func invalidKeysAreRejected(bad: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        #expect(throws: CacheError.invalidKey(bad)) { try cache.store(Data(count: 1), forKey: bad) }
        #expect(cache.data(forKey: bad) == nil)
    }

    @Test func ageLimitExpiresByStoreTime() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try DiskCache(directory: folder.url, configuration: .init(ageLimit: .seconds(100)), clock: CacheClock { clock.now })
        try cache.store(Data(count: 1), forKey: k("a"))
        clock.advance(by: 50)
        try cache.store(Data(count: 1), forKey: k("b"))
        clock.advance(by: 50)
        #expect(cache.data(forKey: k("a")) == nil)
        #expect(cache.data(forKey: k("b")) != nil)
        clock.advance(by: 50)
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    @Test func removeAllEmptiesTheDirectory() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        for name in ["a", "b"] { try cache.store(Data(count: 3), forKey: k(name)) }
        cache.removeAll()
        #expect(cache.totalSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
