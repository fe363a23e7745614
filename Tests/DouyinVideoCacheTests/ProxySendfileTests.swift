import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Issue 37: the proxy's fast path sends checked blocks of an unchanged data file with
/// `sendfile`, and a block changed on disk after it was checked — by another process, cut
/// short, overwritten in place with the same size — is caught and never served. Real files, a
/// real proxy on loopback, curl as the client, `/bin/sh` as the other process.
@Suite("Proxy sendfile fast path against changes on disk", .serialized)
struct ProxySendfileTests: ProxySuite {
    let fixture: ProxyFixture

    init() async throws {
        // Four 256 KiB blocks and a part of a fifth.
        fixture = try await ProxyFixture(file: videoBytes(1_100_000, seed: 37))
    }

    /// A proxy whose cache's clock reads an hour ahead, so a data file's change time is past
    /// the racy window at once (FileIdentity): what a file last changed an hour ago looks like.
    func settledServer() throws -> VideoProxyServer {
        var configuration = VideoCache.Configuration()
        configuration.now = { Date(timeIntervalSinceNow: 3600) }
        return try started(try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, configuration: configuration))
    }

    /// The entry's data file in the cache directory.
    func dataFile() throws -> String {
        let directory = folder.appending("cache")
        let name = try entryFiles(in: directory).first { $0.hasSuffix(".mp4") }
        return directory.appendingPathComponent(try #require(name)).path
    }

    /// Runs `script` in `/bin/sh` with the data file's path as `$1`: another process.
    func otherProcess(_ script: String) async throws {
        let result = try await runProcess("/bin/sh", ["-c", script, "sh", try dataFile()])
        #expect(result.status == 0, "\(script): \(result.stderr)")
    }

    /// Warms `server`: the first answer fetches the file, whose index (with every block's
    /// checksum) is then written; the second answer checks every block (trusting it when the
    /// file's change time is settled; blocks checked during the first answer may be trusted
    /// already), the third goes out by sendfile. Returns the proxy URL.
    func warmed(_ server: VideoProxyServer) async throws -> URL {
        let url = try #require(server.url(for: nginx.url("/v/a.mp4")))
        for round in 0..<3 {
            let answer = try await curl(url)
            #expect(answer.status == 200 && answer.body == file)
            if round == 0 {
                // Awaited here, not left to the answer's end: the reader closes after curl has
                // its bytes, so the next answer could otherwise come before the index.
                let reader = server.cache.reader(for: nginx.url("/v/a.mp4"))
                try reader.persist()
                reader.close()
            }
        }
        return url
    }

    @Test func checkedBlocksOfAnUnchangedFileGoOutBySendfile() async throws {
        defer { folder.remove() }
        let server = try settledServer()
        let url = try await warmed(server)
        let before = server.statistics
        let ranged = try await curl(url, ["-r", "300000-899999"])
        let after = server.statistics
        await server.stop()
        #expect(before.bytesSentFromFile >= Int64(file.count), "the third answer went out by sendfile")
        #expect(ranged.status == 206 && ranged.body == file.subdata(in: 300_000..<900_000))
        #expect(after.bytesSentFromFile - before.bytesSentFromFile == 600_000)
    }

    @Test(arguments: [
        // Same size, in place, by another process: only the change time tells.
        ("overwritten in place", "printf 'ROTTEN BYTES' | dd of=\"$1\" bs=1 seek=300000 conv=notrunc status=none"),
        // A whole block of other bytes, same size.
        ("a block replaced", "dd if=/dev/urandom of=\"$1\" bs=262144 seek=2 count=1 conv=notrunc status=none"),
        // Cut short, then grown back to the same size with zeros: the size is as it was.
        ("truncated and regrown", "truncate -s 600000 \"$1\" && truncate -s 1100000 \"$1\""),
        // Cut short and left so.
        ("truncated", "truncate -s 500000 \"$1\""),
    ])
    func aBlockChangedOnDiskAfterItWasCheckedIsNeverServed(_ change: String, _ script: String) async throws {
        defer { folder.remove() }
        // Given a proxy whose blocks were all checked and now go out by sendfile
        let server = try settledServer()
        let url = try await warmed(server)
        let fetched = server.cache.statistics.originBytes
        let sentFromFile = server.statistics.bytesSentFromFile
        // When another process changes the data file
        try await otherProcess(script)
        // Then every answer still has the origin's bytes: the changed blocks are fetched again
        let whole = try await curl(url)
        let ranged = try await curl(url, ["-r", "250000-700000"])
        let again = try await curl(url)
        let refetched = server.cache.statistics.originBytes - fetched
        // And once the refetched bytes are indexed and every block checked again, the whole
        // file goes out by sendfile again
        let beforeRewarm = server.statistics.bytesSentFromFile
        _ = try await warmed(server)
        let rewarmed = server.statistics.bytesSentFromFile - beforeRewarm
        await server.stop()
        #expect(whole.status == 200 && whole.body == file, "\(change): the first answer after the change")
        #expect(ranged.status == 206 && ranged.body == file.subdata(in: 250_000..<700_001), "\(change)")
        #expect(again.status == 200 && again.body == file, "\(change)")
        #expect(refetched > 0, "\(change): the damaged bytes came from the origin again")
        #expect(sentFromFile >= Int64(file.count), "\(change): before the change the fast path was taken")
        #expect(rewarmed >= Int64(file.count), "\(change): the fast path came back once the blocks were checked again")
    }

    @Test func whileTheFilesChangeTimeIsRacyEveryReadIsCheckedAndNoneSentByFile() async throws {
        defer { folder.remove() }
        // Given a proxy whose cache's clock reads an hour behind: every change of the data file
        // looks as if made within the racy window, so its identity never proves anything
        var configuration = VideoCache.Configuration()
        configuration.now = { Date(timeIntervalSinceNow: -3600) }
        let server = try started(try VideoCache(directory: folder.appending("cache"), sizeLimit: 1 << 30, configuration: configuration))
        let url = try await warmed(server)
        #expect(server.statistics.bytesSentFromFile == 0)
        let fetched = server.cache.statistics.originBytes
        // When another process overwrites bytes in place, the same size
        try await otherProcess("printf 'ROTTEN' | dd of=\"$1\" bs=1 seek=700000 conv=notrunc status=none")
        // Then the next answer is still the origin's bytes
        let answer = try await curl(url, ["-r", "600000-799999"])
        let refetched = server.cache.statistics.originBytes - fetched
        await server.stop()
        #expect(answer.status == 206 && answer.body == file.subdata(in: 600_000..<800_000))
        #expect(refetched > 0)
    }
}
