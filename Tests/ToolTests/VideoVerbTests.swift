import DouyinTestSupport
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
    @Test func originThenCacheWithTheSameBytes() throws {
        let nginx = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(300_000)
        try nginx.serve(file, at: "/v.mp4")
        let url = nginx.url("/v.mp4").absoluteString
        let dir = folder.appending("cache").path
        let out = folder.appending("out.bin").path
        let first = try Tool.run(["video", "get", url, "--range", "1000-200999", "--dir", dir, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("origin_bytes=200000 cached_bytes=0"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file[1000..<201_000])
        let second = try Tool.run(["video", "get", url, "--range", "0-299999", "--dir", dir])
        #expect(second.stderr.contains("origin_bytes=100000 cached_bytes=200000"), "\(second.stderr)")
        #expect(second.output == file)
        #expect(nginx.requests().map(\.range) == ["bytes=1000-200999", "bytes=0-999", "bytes=201000-299999"])
    }

    @Test func aFileURLNeedsNoServer() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = videoBytes(50_000)
        let source = folder.appending("source.mp4")
        try file.write(to: source)
        let result = try Tool.run(["video", "get", source.absoluteString, "--range", "100-199", "--dir", folder.appending("cache").path])
        #expect(result.status == 0)
        #expect(result.output == file[100..<200])
    }

    @Test func badArgumentsExitTwoAndOriginErrorsOne() throws {
        let nginx = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = nginx.url("/missing.mp4").absoluteString
        for range in ["5-1", "a-b", "-3", "1-2-3"] {
            #expect(try Tool.run(["video", "get", url, "--range", range, "--dir", folder.url.path]).status == 2, "range \(range)")
        }
        #expect(try Tool.run(["video", "get", url, "--dir", folder.url.path]).status == 2)
        let missing = try Tool.run(["video", "get", url, "--range", "0-9", "--dir", folder.url.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("origin answered 404"))
    }

    @Test func aProcessKilledWhileWritingLeavesACacheThatReadsCorrectly() async throws {
        let nginx = try NginxOrigin(extraLocations: "location /slow/ { limit_rate 1m; }")
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
        try process.run()
        // Kill once 2.5 MB have streamed out: past two index writes, mid-way through a third.
        var received = Data()
        while received.count < 2_500_000 {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
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
}
