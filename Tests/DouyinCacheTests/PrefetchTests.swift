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

/// Issue 21 item 10, the image side: a caller that wants a resource stored learns when the
/// disk tier could not store it, and what is planted under an entry's name is never followed,
/// read through or waited on.
@Suite("TwoTierCache prefetch", .serialized)
struct PrefetchTests {
    let origin: NginxOrigin
    let folder: TemporaryDirectory
    let cover = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })

    init() async throws {
        origin = try await NginxOrigin.start()
        folder = try TemporaryDirectory()
        try origin.serve(cover, at: "/cover.webp")
    }

    var url: URL { origin.url("/cover.webp") }

    func cache(_ faults: FaultInjector? = nil) throws -> TwoTierCache {
        let files = faults.map { FileIO(syscalls: Syscalls.system.injecting($0)) } ?? FileIO()
        let disk = try DiskCache(directory: folder.appending("images"), configuration: .init(), clock: .system, files: files)
        return TwoTierCache(memory: MemoryCache(), disk: disk, downloader: Downloader())
    }

    @Test func saysWhereTheResourceIsHeld() async throws {
        defer { folder.remove() }
        let first = try cache()
        #expect(try await first.prefetch(url).source == .network)
        #expect(try await first.prefetch(url).source == .memory)
        #expect(try await cache().prefetch(url).source == .disk)  // a restart: the disk has it
        #expect(origin.requests().filter { $0.uri == "/cover.webp" }.count == 1)
    }

    /// A full disk (a mock: no real disk fills on demand) answered `fetch` with `.network` and
    /// stored nothing; `prefetch` throws the disk's error, and the statistics count it.
    @Test func aFullDiskIsThrownNotReportedAsHeld() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try cache(faults)
        faults.fail(.pwrite, with: ENOSPC)
        await #expect(throws: CacheError.diskFull(path: folder.appending("images").path, errno: ENOSPC)) { try await cache.prefetch(url) }
        #expect(cache.statistics.diskWriteFailures == 1)
        #expect(cache.disk?.contains(key: TwoTierCache.key(for: url)) == false)
    }

    /// A read-only directory: the tests run as root, for whom no directory is read-only, so
    /// the refusal is a mock of `open` failing with EROFS.
    @Test func aReadOnlyDirectoryIsThrown() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        let cache = try cache(faults)
        faults.fail(.open, with: EROFS)
        await #expect(throws: CacheError.unwritable(path: folder.appending("images").path, errno: EROFS)) { try await cache.prefetch(url) }
    }

    /// A directory planted under the entry's name: the read refuses it (a directory is not an
    /// entry), the store cannot rename over it, and the caller is told.
    @Test func aDirectoryUnderTheEntrysNameIsThrown() async throws {
        defer { folder.remove() }
        let entry = folder.appending("images/\(TwoTierCache.key(for: url))")
        do {
            let cache = try cache()
            #expect(try await cache.prefetch(url).source == .network)
        }
        try FileManager.default.removeItem(at: entry)
        try FileManager.default.createDirectory(at: entry.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let restarted = try cache()
        await #expect(throws: CacheError.self) { try await restarted.prefetch(url) }
        #expect(restarted.statistics.diskWriteFailures == 1)
        #expect(FileManager.default.fileExists(atPath: entry.appendingPathComponent("inside").path), "never removed through")
    }

    /// A FIFO or a symlink planted under an indexed entry's name: the read opens it without
    /// blocking and without following, refuses it, removes the link itself (not its target),
    /// and the download that follows is stored.
    @Test func aFIFOOrASymlinkUnderTheEntrysNameIsDamageNeverWaitedOnOrFollowed() async throws {
        defer { folder.remove() }
        let entry = folder.appending("images/\(TwoTierCache.key(for: url))")
        let victim = folder.appending("victim")
        try Data("victim's own bytes".utf8).write(to: victim)
        let cache = try cache()
        #expect(try await cache.prefetch(url).source == .network)
        for plant in ["fifo", "symlink"] {
            try FileManager.default.removeItem(at: entry)
            if plant == "fifo" {
                #expect(mkfifo(entry.path, 0o644) == 0)
            } else {
                try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: victim)
            }
            let fresh = TwoTierCache(memory: MemoryCache(), disk: cache.disk, downloader: Downloader())
            #expect(try await fresh.prefetch(url).source == .network, "\(plant)")
            #expect(fresh.disk?.data(forKey: TwoTierCache.key(for: url)) == cover, "\(plant)")
            #expect(try FileManager.default.attributesOfItem(atPath: entry.path)[.type] as? FileAttributeType == .typeRegular, "\(plant)")
        }
        #expect(try Data(contentsOf: victim) == Data("victim's own bytes".utf8))
    }

    /// A body the server ended by closing the connection cannot be told from a cut one: handed
    /// over by `fetch`, stored nowhere, and `prefetch` says so.
    @Test func anUncheckedBodyIsNotStoredAndPrefetchSaysSo() async throws {
        defer { folder.remove() }
        let hostile = try await HostileOrigin.start()
        let closing = URL(string: "http://127.0.0.1:\(hostile.port)/close/5000")!
        let cache = try cache()
        await #expect(throws: CacheError.notStored(url: closing.absoluteString)) { try await cache.prefetch(closing) }
        #expect(cache.cachedData(for: closing) == nil)
    }
}
