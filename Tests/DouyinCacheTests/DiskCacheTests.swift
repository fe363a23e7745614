import DouyinCache
import DouyinTestSupport
import Foundation
import Testing

@Suite("DiskCache")
struct DiskCacheTests {
    let key = MD5.hex("https://cdn.example.test/a.jpeg")

    @Test func storesAndReadsOneFileNamedByTheKey() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.appending("cache"))
        try cache.store(Data("hello".utf8), forKey: key)
        #expect(cache.data(forKey: key) == Data("hello".utf8))
        #expect(try Data(contentsOf: folder.appending("cache/\(key)")) == Data("hello".utf8))
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
        let cache = try DiskCache(directory: folder.url, sizeLimit: 1000, clock: CacheClock { clock.now })
        for name in ["a", "b", "c", "d"] {
            try cache.store(Data(count: 300), forKey: name)
            clock.advance(by: 1)
        }
        // 1200 > 1000: trims to ≤ 900 by dropping the oldest, a.
        #expect(cache.keysByRecency == ["b", "c", "d"])
        _ = cache.data(forKey: "b")  // b becomes the most recent
        clock.advance(by: 1)
        try cache.store(Data(count: 300), forKey: "e")
        #expect(cache.keysByRecency == ["d", "b", "e"])
        #expect(!FileManager.default.fileExists(atPath: folder.appending("c").path))
        #expect(cache.totalSize == 900)
    }

    @Test func restartKeepsTheIndexAndTheRecencyOrder() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let clock = ManualClock()
        do {
            let cache = try DiskCache(directory: folder.url, clock: CacheClock { clock.now })
            for name in ["a", "b", "c"] {
                try cache.store(Data(count: 10), forKey: name)
                clock.advance(by: 1)
            }
            _ = cache.data(forKey: "a")
        }  // Released: the manifest is written.
        let reopened = try DiskCache(directory: folder.url, sizeLimit: 25, clock: CacheClock { clock.now })
        #expect(reopened.totalSize == 30)
        #expect(reopened.keysByRecency == ["b", "c", "a"])
        reopened.trim(toSize: 20)
        #expect(reopened.keysByRecency == ["c", "a"])
    }

    @Test func restartWithoutAManifestStillIndexesEveryFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for name in ["x1", "x2"] { try Data(count: 7).write(to: folder.appending(name)) }
        try Data(count: 3).write(to: folder.appending(".tmp-crashed-write"))
        let cache = try DiskCache(directory: folder.url)
        #expect(cache.count == 2 && cache.totalSize == 14)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(".tmp-crashed-write").path))
    }

    @Test func directoryDeletedWhileRunningIsRecreated() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.appending("cache"))
        try cache.store(Data(count: 10), forKey: "old")
        try FileManager.default.removeItem(at: folder.appending("cache"))
        #expect(cache.data(forKey: "old") == nil)
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
            guard case CacheError.unwritable(let path, _) = error else { return false }
            return path.hasSuffix("blocker/cache")
        }

        let cache = try DiskCache(directory: folder.appending("cache"))
        try FileManager.default.removeItem(at: folder.appending("cache"))
        try Data().write(to: folder.appending("cache"))  // The directory becomes a file under the cache.
        #expect(throws: CacheError.self) { try cache.store(Data(count: 4), forKey: key) }
        #expect(cache.count == 0)
    }

    @Test func corruptedFileIsAMissAndIsRemoved() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        try cache.store(Data(count: 1000), forKey: key)
        // Truncated behind the cache's back.
        try Data(count: 10).write(to: folder.appending(key))
        #expect(cache.data(forKey: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(key).path))
        #expect(cache.totalSize == 0)
        // A directory in place of the file cannot be read either.
        try cache.store(Data(count: 5), forKey: "k2")
        try FileManager.default.removeItem(at: folder.appending("k2"))
        try FileManager.default.createDirectory(at: folder.appending("k2"), withIntermediateDirectories: false)
        #expect(cache.data(forKey: "k2") == nil)
        #expect(cache.count == 0)
    }

    @Test(arguments: ["", "../escape", "a/b", ".manifest", "spaces here", String(repeating: "x", count: 300)])
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
        let cache = try DiskCache(directory: folder.url, ageLimit: 100, clock: CacheClock { clock.now })
        try cache.store(Data(count: 1), forKey: "a")
        clock.advance(by: 50)
        try cache.store(Data(count: 1), forKey: "b")
        clock.advance(by: 50)
        #expect(cache.data(forKey: "a") == nil)
        #expect(cache.data(forKey: "b") != nil)
        clock.advance(by: 50)
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    @Test func removeAllEmptiesTheDirectory() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = try DiskCache(directory: folder.url)
        for name in ["a", "b"] { try cache.store(Data(count: 3), forKey: name) }
        cache.removeAll()
        #expect(cache.totalSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
