import DouyinSupport
import DouyinTestSupport
@testable import DouyinVideoCache
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// Disk faults no real disk produces on demand (a full disk, an I/O error, short writes,
/// interrupted calls), injected with DouyinSupport's `FaultInjector` — a mock of the C calls,
/// named as such — under a real nginx origin. What each test proves: the right bytes or a typed
/// error that keeps the errno, never a wrong byte, and nothing recorded as held that was not
/// written.
@Suite("VideoCache on a failing disk (FaultInjector mock of the file calls)", .serialized)
struct VideoCacheDiskFaultTests {
    let folder: TemporaryDirectory
    let nginx: NginxOrigin
    let file = videoBytes(1_000_000, seed: 91)

    init() async throws {
        folder = try TemporaryDirectory()
        nginx = try await NginxOrigin.start()
        try nginx.serve(file, at: "/v/disk.mp4")
    }

    var url: URL { nginx.url("/v/disk.mp4") }
    var dataFileName: String { Self.dataFileName(url) }

    static func dataFileName(_ url: URL) -> String { MD5Digest.hex(Data(url.absoluteString.utf8)) + ".mp4" }

    func cache(_ faults: FaultInjector? = nil) throws -> VideoCache {
        let files = faults.map { FileIO(syscalls: Syscalls.system.injecting($0)) } ?? FileIO()
        return try VideoCache(directory: folder.url, sizeLimit: 1 << 30, origin: URLSessionOrigin(), configuration: VideoCache.Configuration(), files: files)
    }

    /// A cache restarted on a healthy disk reads `file` whole, and fetches exactly what the
    /// failing one did not record as held.
    func expectRestartServesTheFile(held: ByteRangeSet, at url: URL? = nil) async throws {
        let url = url ?? self.url
        let before = nginx.requests().count
        let restarted = try cache()
        #expect(restarted.cachedRanges(for: url) == held, "an index recorded bytes the failing disk never wrote")
        let reader = restarted.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<Int64(file.count)) == file, "wrong bytes after the restart")
        if held.contains(0..<Int64(file.count)) { #expect(nginx.requests().count == before) }
    }

    @Test func aFullDiskServesTheRightBytesUncachedWithTheErrnoAndRecordsNothing() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        faults.fail(.pwrite, with: ENOSPC)
        do {
            let reader = try cache(faults).reader(for: url)
            #expect(try await reader.read(0..<1_000_000) == file)
            #expect(reader.uncachedError == .file(name: dataFileName, call: "pwrite", errno: ENOSPC))
            #expect(reader.uncachedReason?.contains("No space left on device") == true)
            #expect(reader.cachedRanges.isEmpty)
            reader.close()
        }
        #expect(faults.injectedCount(.pwrite) > 0)
        try await expectRestartServesTheFile(held: ByteRangeSet())
    }

    @Test func aDiskThatFillsMidReadKeepsOnlyWhatWasWritten() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        // The disk fills after 24 writes of at most 16 KB (384 KB): by count, not by timing, so
        // a slow or fast consumer sees the same fault mid-download.
        let writesBeforeFull = 24, writeLimit = 16_384
        faults.limitTransfers(to: writeLimit)
        faults.fail(.pwrite, with: ENOSPC, after: writesBeforeFull)
        var received = Data()
        var held = ByteRangeSet()
        do {
            let reader = try cache(faults).reader(for: url)
            for try await chunk in reader.chunks(0..<1_000_000, chunkSize: 100_000) {
                received.append(chunk)
            }
            #expect(reader.uncachedError == .file(name: dataFileName, call: "pwrite", errno: ENOSPC))
            held = reader.cachedRanges
            faults.heal(.pwrite)
            faults.limitTransfers(to: nil)
            reader.close()
        }
        #expect(received == file, "wrong bytes served while the disk filled")
        #expect(faults.injectedCount(.pwrite) >= 1)
        // What is held is a prefix no longer than what reached the disk; the restart proves the
        // index names only written bytes (a byte recorded but never written reads as zeros).
        #expect(held.ranges.count <= 1 && (held.ranges.first?.lowerBound ?? 0) == 0, "\(held)")
        #expect(held.byteCount <= Int64(writesBeforeFull * writeLimit), "\(held)")
        try await expectRestartServesTheFile(held: held)
    }

    @Test func anIOErrorReadingHeldBytesIsATypedErrorKeepingTheErrno() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        let reader = try cache(faults).reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<1_000_000) == file)
        faults.fail(.pread, with: EIO)
        await #expect(throws: VideoCacheError.file(name: dataFileName, call: "pread", errno: EIO)) {
            try await reader.read(0..<1_000_000)
        }
        faults.heal(.pread)
        #expect(try await reader.read(0..<1_000_000) == file)
    }

    @Test func shortTransfersAndInterruptedCallsStoreEveryByte() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        faults.limitTransfers(to: 4096)
        faults.fail(.pwrite, with: EINTR, times: 3)
        faults.fail(.pread, with: EINTR, times: 3)
        faults.fail(.fsync, with: EINTR, times: 2)
        do {
            let reader = try cache(faults).reader(for: url)
            #expect(try await reader.read(0..<1_000_000) == file)
            #expect(try await reader.read(0..<1_000_000) == file)
            #expect(reader.uncachedError == nil)
            reader.close()
        }
        #expect(faults.injectedCount(.pwrite) == 3)
        #expect(faults.injectedCount(.pread) == 3)
        #expect(faults.injectedCount(.fsync) == 2)
        try await expectRestartServesTheFile(held: ByteRangeSet([0..<1_000_000]))
    }

    @Test func aFailedFsyncWritesNoIndex() async throws {
        defer { folder.remove() }
        let faults = FaultInjector()
        faults.fail(.fsync, with: EIO)
        do {
            let reader = try cache(faults).reader(for: url)
            #expect(try await reader.read(0..<1_000_000) == file)
            reader.close()
        }
        #expect(faults.injectedCount(.fsync) > 0)
        // The index is written only after its data is durable: none describes these bytes.
        try await expectRestartServesTheFile(held: ByteRangeSet())
    }
}
