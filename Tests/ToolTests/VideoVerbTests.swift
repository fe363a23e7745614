import DouyinTestSupport
import DouyinTestTraits
import DouyinVideoCache
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Bytes that differ at every offset, so a misplaced byte shows.
private func videoBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
}

@Suite("douyinkit video get", .serialized)
struct VideoVerbTests {
    @Test func originThenCacheWithTheSameBytes() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(300_000)
        try nginx.serve(file, at: "/v.mp4")
        let url = nginx.url("/v.mp4").absoluteString
        let dir = folder.appending("cache").path
        let out = folder.appending("out.bin").path
        let first = try await Tool.run(["video", "get", url, "--range", "1000-200999", "--dir", dir, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("origin_bytes=200000 cached_bytes=0"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file[1000..<201_000])
        let second = try await Tool.run(["video", "get", url, "--range", "0-299999", "--dir", dir])
        #expect(second.stderr.contains("origin_bytes=100000 cached_bytes=200000"), "\(second.stderr)")
        #expect(second.output == file)
        #expect(nginx.requests().map(\.range) == ["bytes=1000-200999", "bytes=0-999", "bytes=201000-299999"])
    }

    @Test func aFileURLNeedsNoServer() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(50_000)
        let source = folder.appending("source.mp4")
        try file.write(to: source)
        let result = try await Tool.run(["video", "get", source.absoluteString, "--range", "100-199", "--dir", folder.appending("cache").path])
        #expect(result.status == 0)
        #expect(result.output == file[100..<200])
    }

    @Test func badArgumentsExitTwoAndOriginErrorsOne() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = nginx.url("/missing.mp4").absoluteString
        for range in ["5-1", "a-b", "-3", "1-2-3"] {
            #expect(try await Tool.run(["video", "get", url, "--range", range, "--dir", folder.url.path]).status == 2, "range \(range)")
        }
        #expect(try await Tool.run(["video", "get", url, "--dir", folder.url.path]).status == 2)
        let missing = try await Tool.run(["video", "get", url, "--range", "0-9", "--dir", folder.url.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("origin answered 404"))
    }

    @Test func aProcessKilledWhileWritingLeavesACacheThatReadsCorrectly() async throws {
        // Each request's first 1.2 MB at once, then 100 KB/s. The 2.5 MB the kill waits for then
        // take 13 s however fast the machine, so the tool has written its index at least once
        // by then (index writes are 1 MB and 0.5 s apart: a version that sent 2.6 MB at once
        // was killed before its first), and the kill has the 15 s the last 1.5 MB take to land
        // (at 1 MB/s it had 1.5 s, which a loaded machine once missed).
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate_after 1200k; limit_rate 100k; }")
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(4_000_000)
        try nginx.serve(file, at: "/slow/k.mp4")
        let url = nginx.url("/slow/k.mp4")
        let dir = folder.appending("cache")

        let process = Process()
        process.executableURL = Tool.productsDirectory.appendingPathComponent("douyinkit")
        process.arguments = ["video", "get", url.absoluteString, "--range", "0-3999999", "--dir", dir.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let end = try await process.start()
        let pid = process.processIdentifier
        // Kill once 2.5 MB have streamed out: past two index writes, mid-way through a third.
        // The blocking reads on a thread of their own, not on the task pool, and the kill from
        // that thread at once.
        let received = try await onOwnThread { [pipe] in
            var received = Data()
            while received.count < 2_500_000 {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            kill(pid, SIGKILL)
            return received
        }
        await end.wait()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(received.count >= 2_500_000 && received == file[0..<received.count])

        let cache = try VideoCache(directory: dir, sizeLimit: 1 << 30)
        let held = cache.cachedRanges(for: url)
        #expect(held.ranges.count == 1 && held.ranges.first?.lowerBound == 0)
        let kept = held.ranges.first?.upperBound ?? 0
        // The download runs ahead of what the pipe delivered, so `kept` may pass `received`;
        // what matters is that it is some durable prefix short of the whole.
        #expect(kept >= 1 << 20 && kept < 4_000_000, "kept \(kept); \(received.count) streamed")
        let reader = cache.reader(for: url)
        defer { reader.close() }
        #expect(try await reader.read(0..<4_000_000) == file, "every indexed byte is real")
        #expect(nginx.requests().last?.range == "bytes=\(kept)-3999999")
    }

    // MARK: Issue 12

    /// Case 1 through the tool: a second run after the origin's file changed never prints new
    /// bytes after old ones; a third run gets the new version whole.
    @Test(.hangGuard)
    func oldAndNewVersionsSplicedExitsOneAndTheNextRunIsTheNewVersion() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let old = videoBytes(3_000_000), new = Data(videoBytes(3_000_000).reversed())
        try nginx.serve(old, at: "/v.mp4")
        let url = nginx.url("/v.mp4").absoluteString
        let dir = folder.appending("cache").path
        let first = try await Tool.run(["video", "get", url, "--range", "0-999999", "--dir", dir])
        #expect(first.status == 0 && first.output == old[0..<1_000_000], "\(first.stderr)")
        try nginx.serve(new, at: "/v.mp4")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 1000)], ofItemAtPath: nginx.root.appendingPathComponent("v.mp4").path)
        let second = try await Tool.run(["video", "get", url, "--range", "500000-2999999", "--dir", dir])
        #expect(second.status == 1, "spliced answer: \(second.stderr)")
        #expect(second.stderr.contains("changed"), "\(second.stderr)")
        #expect(second.output.count <= 500_000 && second.output == old[500_000..<(500_000 + second.output.count)])
        let third = try await Tool.run(["video", "get", url, "--range", "500000-2999999", "--dir", dir])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.output == new[500_000..<3_000_000])
    }

    /// Case 2: a second process started while the first streams into the same directory used
    /// to delete the first one's data file at start-up; a third run then read zeros.
    @Test(.hangGuard)
    func twoProcessesOneDirectoryNeverServeZeros() async throws {
        // The first process's whole-file request (bytes=0-…) at 100 KB/s, 30 s in all, so it
        // still streams when the second starts however loaded the machine (at 500 KB/s it had
        // 6 s); the second's own request at full speed.
        let nginx = try await NginxOrigin.start(extraLocations: #"location /slow/ { set $rate 0; if ($http_range ~ "^bytes=0-") { set $rate 100k; } limit_rate $rate; }"#)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(3_000_000)
        try nginx.serve(file, at: "/slow/t.mp4")
        let url = nginx.url("/slow/t.mp4").absoluteString
        let dir = folder.appending("cache").path

        // Given a first process streaming the whole file slowly into the cache
        let first = Process()
        first.executableURL = Tool.productsDirectory.appendingPathComponent("douyinkit")
        first.arguments = ["video", "get", url, "--range", "0-2999999", "--dir", dir]
        let pipe = Pipe()
        first.standardOutput = pipe
        first.standardError = FileHandle.nullDevice
        let firstEnd = try await first.start()
        // Its first bytes out mean it holds the entry and has made its data file (no index yet:
        // the first is written after 1 MB, ten seconds in).
        var streamed = try await onOwnThread { [pipe] in pipe.fileHandleForReading.availableData }
        #expect(!streamed.isEmpty)
        let rest = Task { try await onOwnThread { [pipe] in pipe.fileHandleForReading.readDataToEndOfFile() } }

        // When a second process reads part of it from the same directory
        let second = try await Tool.run(["video", "get", url, "--range", "1000000-1999999", "--dir", dir])

        // Then both answers are right, the second says it worked uncached, and a third run
        // reads every byte right from what the first one stored
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.output == file[1_000_000..<2_000_000])
        #expect(second.stderr.contains("cache=uncached"), "\(second.stderr)")
        streamed.append(try await rest.value)
        await firstEnd.wait()
        #expect(first.terminationStatus == 0)
        #expect(streamed == file)
        let third = try await Tool.run(["video", "get", url, "--range", "0-2999999", "--dir", dir])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.output == file, "zeros or other bytes served from the shared directory")
        #expect(third.stderr.contains("origin_bytes=0 cached_bytes=3000000"), "\(third.stderr)")
    }

    /// Case 6: a range past the end exits 1 naming the length, whether the length is unknown
    /// (the origin's 416 tells it) or already cached.
    @Test(arguments: [false, true])
    func aRangePastTheEndExitsOneNamingTheLength(warm: Bool) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try nginx.serve(videoBytes(300_000), at: "/short.mp4")
        let url = nginx.url("/short.mp4").absoluteString
        let dir = folder.appending("cache").path
        if warm {
            #expect(try await Tool.run(["video", "get", url, "--range", "0-9", "--dir", dir]).status == 0)
        }
        let result = try await Tool.run(["video", "get", url, "--range", "300000-300009", "--dir", dir])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.stderr.contains("300000 bytes"), "\(result.stderr)")
        let inside = try await Tool.run(["video", "get", url, "--range", "299990-300009", "--dir", dir])
        #expect(inside.status == 0 && inside.output.count == 10, "a range reaching past the end is clipped")
    }

    @Test func aReversedRangeIsAUsageErrorNamingTheOption() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let result = try await Tool.run(["video", "get", "http://127.0.0.1:9/v.mp4", "--range", "5-3", "--dir", folder.url.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--range"), "\(result.stderr)")
    }

    /// A last byte at Int64.max has no exclusive end; the message says the bound rather than
    /// "first ≤ last", which held.
    @Test func aRangeEndingAtInt64MaxSaysTheBound() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let result = try await Tool.run(["video", "get", "http://127.0.0.1:9/v.mp4", "--range", "9223372036854775806-9223372036854775807", "--dir", folder.url.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("last < \(Int64.max)"), "\(result.stderr)")
    }

    /// Case 7: a read-only cache directory (a read-only bind mount, so even root cannot write)
    /// serves what it holds and fetches the rest without storing it.
    @Test func aReadOnlyCacheDirectoryServesWhatItHoldsAndFetchesTheRest() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(400_000)
        try nginx.serve(file, at: "/ro.mp4")
        let url = nginx.url("/ro.mp4").absoluteString
        let dir = folder.appending("cache").path
        #expect(try await Tool.run(["video", "get", url, "--range", "0-199999", "--dir", dir]).status == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let binary = Tool.productsDirectory.appendingPathComponent("douyinkit").path
        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\""
        let result = try await runCapturing("/usr/bin/unshare", ["-r", "-m", "sh", "-c", script, "sh", dir, binary, "video", "get", url, "--range", "100000-399999", "--dir", dir])
        try #require(!result.stderr.contains("mount:"), "no user namespaces here: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == file[100_000..<400_000])
        #expect(result.stderr.contains("origin_bytes=200000 cached_bytes=100000"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before, "nothing written")
    }

    /// Case 5, video half: `--out` replaced a symlink with a regular file; now it refuses a
    /// symlink or directory and leaves it as it was, and still replaces a regular file.
    @Test func outRefusesASymlinkAndADirectoryAndReplacesARegularFile() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(10_000)
        try nginx.serve(file, at: "/o.mp4")
        let url = nginx.url("/o.mp4").absoluteString
        let dir = folder.appending("cache").path
        let victim = folder.appending("victim")
        try Data("keep".utf8).write(to: victim)
        let link = folder.appending("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim.path)
        let linked = try await Tool.run(["video", "get", url, "--range", "0-9999", "--dir", dir, "--out", link])
        #expect(linked.status == 1 && linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == victim.path)
        #expect(try Data(contentsOf: victim) == Data("keep".utf8))
        let directory = try await Tool.run(["video", "get", url, "--range", "0-9999", "--dir", dir, "--out", folder.url.path])
        #expect(directory.status == 1 && directory.stderr.contains("directory"), "\(directory.stderr)")
        let regular = try await Tool.run(["video", "get", url, "--range", "0-9999", "--dir", dir, "--out", victim.path])
        #expect(regular.status == 0, "\(regular.stderr)")
        #expect(try Data(contentsOf: victim) == file)
    }

    /// Runs a program with stdout and stderr in files and waits.
    private func runCapturing(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: Data, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (output, stderr) = try await process.runCapturingOutput()
        return (process.terminationStatus, output, String(decoding: stderr, as: UTF8.self))
    }
}
