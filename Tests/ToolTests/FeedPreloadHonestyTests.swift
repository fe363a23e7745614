import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Synchronization
import Testing

/// Issue 21 items 6, 8, 9, 10 and 11 through `douyinkit feed preload`: a line says `cached` or
/// `network` only for bytes held and indexed; another process's entry is `uncached` with the
/// reason; anything else that kept nothing is an error line and exit 1, the others still done.
@Suite("douyinkit feed preload says only what it did", .serialized)
struct FeedPreloadHonestyTests {
    /// nginx serving the fixture feed's files, and the feed with each
    /// `http://origin.invalid/<path>` URL replaced by `replace(path)` (default: nginx's).
    struct Origin {
        let nginx: NginxOrigin
        let feed: String
        var base: String { "http://127.0.0.1:\(nginx.port)" }

        init(in folder: TemporaryDirectory, replace: [String: String] = [:]) async throws {
            nginx = try await NginxOrigin.start()
            for index in 0..<6 {
                try nginx.serve(integrityBytes(300_000, seed: UInt64(40 + index)), at: "/videos/v\(index).mp4")
                try nginx.serve(Fixtures.data("webp/covers/cover-\(index % 3).webp"), at: "/covers/c\(index).webp")
                try nginx.serve(Data(repeating: UInt8(index), count: 1_000 + index), at: "/avatars/a\(index).jpeg")
            }
            var text = try String(contentsOf: Fixtures.url("feed/feed.json"), encoding: .utf8)
            for (path, url) in replace { text = text.replacingOccurrences(of: "http://origin.invalid/\(path)", with: url) }
            text = text.replacingOccurrences(of: "http://origin.invalid", with: "http://127.0.0.1:\(nginx.port)")
            let feed = folder.appending("feed.json")
            try Data(text.utf8).write(to: feed)
            self.feed = feed.path
        }

        func url(_ path: String) -> URL { URL(string: base + "/" + path)! }
    }

    /// What a run printed and how it exited.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func videoLines(_ result: Tool.Result) -> [String] {
        videoLines(Run(status: result.status, stdout: result.stdout, stderr: result.stderr))
    }

    func videoLines(_ result: Run) -> [String] {
        result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("video ") }
    }

    /// Item 6: `--ahead 2^62` looped once per unit and never ended.
    @Test(.hangGuard)
    func aHugeWindowIsTheWholeFeed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let origin = try await Origin(in: folder)
        let huge = String(1 << 62)
        let result = try await Tool.run(["feed", "preload", origin.feed, "--index", "2", "--dir", folder.appending("c").path,
                                         "--ahead", huge, "--behind", huge, "--bytes", "1000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(videoLines(result).map { $0.split(separator: " ")[1] }) == ["0", "1", "3", "4", "5"], "\(result.stdout)")
    }

    /// Item 8: a video URL `ftp://…` made the tool connect (and hang on a silent server).
    @Test(.hangGuard)
    func anFTPVideoURLIsAnErrorLineWithoutAConnection() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let listener = try SilentListener()
        let ftp = "ftp://127.0.0.1:\(listener.port)/v3.mp4"
        let origin = try await Origin(in: folder, replace: ["videos/v3.mp4": ftp])
        let result = try await Tool.run(["feed", "preload", origin.feed, "--index", "2", "--dir", folder.appending("c").path, "--bytes", "1000"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: video 3 \(ftp): refused"), "\(result.stderr)")
        #expect(videoLines(result).count == 3 && videoLines(result).allSatisfy { $0.hasSuffix("source=network") }, "\(result.stdout)")
        #expect(listener.connectionAttempts() == 0)
    }

    /// Item 9: a second process printed `bytes=0 source=cached` for a video it fetched and threw away.
    @Test func anEntryAnotherProcessHoldsIsUncachedWithTheReasonNeverCached() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let origin = try await Origin(in: folder)
        let dir = folder.appending("c")
        let lock = try await ForeignEntryLock.take(directory: dir.appendingPathComponent("video"), url: origin.url("videos/v3.mp4"))
        defer { lock.release() }
        let result = try await Tool.run(["feed", "preload", origin.feed, "--index", "2", "--dir", dir.path, "--bytes", "1000"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = videoLines(result)
        #expect(lines.contains("video 3 \(origin.base)/videos/v3.mp4 bytes=0 source=uncached reason=the entry is in use by another process"), "\(result.stdout)")
        #expect(lines.filter { $0.hasSuffix("source=network") }.count == 3, "\(result.stdout)")
        #expect(!result.stdout.contains("source=cached"))
    }

    /// Item 10: cache file names taken by a directory gave `bytes=0 source=cached`; now each is
    /// an error for that video, exit 1, the others done.
    @Test func aDataOrIndexNameTakenByADirectoryIsAnErrorForThatVideo() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let origin = try await Origin(in: folder)
        let video = folder.appending("c/video")
        try FileManager.default.createDirectory(at: video.appendingPathComponent(VideoCacheFiles.dataFileName(of: origin.url("videos/v3.mp4"))),
                                                withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: video.appendingPathComponent(VideoCacheFiles.indexName(of: origin.url("videos/v4.mp4"))),
                                                withIntermediateDirectories: true)
        let result = try await Tool.run(["feed", "preload", origin.feed, "--index", "2", "--dir", folder.appending("c").path, "--bytes", "1000"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: video 3 "), "\(result.stderr)")
        #expect(result.stderr.contains("error: video 4 "), "\(result.stderr)")
        #expect(videoLines(result).sorted() == ["video 1 \(origin.base)/videos/v1.mp4 bytes=1000 source=network",
                                                "video 5 \(origin.base)/videos/v5.mp4 bytes=1000 source=network"], "\(result.stdout)")
    }

    /// Item 10: a read-only directory (a read-only bind mount in a user namespace, so even root
    /// cannot write) gave `source=cached` for bytes fetched and dropped.
    @Test func aReadOnlyDirectoryIsAnErrorForEveryVideoNotHeld() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let origin = try await Origin(in: folder)
        let dir = folder.appending("c")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("video"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("images"), withIntermediateDirectories: true)
        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\""
        let result = try await inNamespace(script, [dir.path, Self.binary, "feed", "preload", origin.feed, "--index", "2", "--dir", dir.path, "--bytes", "1000"])
        try #require(!result.stderr.contains("mount:"), "no user namespaces here: \(result.stderr)")
        #expect(result.status == 1)
        #expect(videoLines(result).isEmpty, "\(result.stdout)")
        for index in [1, 3, 4, 5] { #expect(result.stderr.contains("error: video \(index) "), "\(result.stderr)") }
        // Covers and avatars too: the image cache could not store them, so no line says they
        // are held (it said `source=network` for images fetched and dropped).
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        for index in 1...5 {
            #expect(result.stderr.contains("error: cover \(index) "), "\(result.stderr)")
            #expect(result.stderr.contains("error: avatar \(index) "), "\(result.stderr)")
        }
    }

    /// Item 10: a full disk (a 300 KB tmpfs in a user namespace) gave exit 0 and lines for
    /// videos with no index. Now every `network` line's bytes are indexed (a `video get` of a
    /// copy of the cache reads them with no origin byte) and the rest are errors, exit 1.
    @Test func aFullDiskLeavesOnlyLinesThatAreTrue() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let origin = try await Origin(in: folder)
        let dir = folder.appending("tmpfs"), copy = folder.appending("copy")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = """
            mount -t tmpfs -o size=300k tmpfs "$1" || exit 99
            "$2" feed preload "$3" --index 2 --dir "$1" --bytes 100000; status=$?
            cp -a "$1/video" "$4"; exit $status
            """
        let result = try await inNamespace(script, [dir.path, Self.binary, origin.feed, copy.path])
        try #require(result.status != 99, "no user namespaces here: \(result.stderr)")
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        let held = videoLines(result)
        #expect(held.count < 4 && held.allSatisfy { $0.hasSuffix("bytes=100000 source=network") }, "\(result.stdout)")
        for line in held {
            let url = String(line.split(separator: " ")[2])
            let get = try await Tool.run(["video", "get", url, "--range", "0-99999", "--dir", copy.path])
            #expect(get.status == 0 && get.stderr.contains("origin_bytes=0 cached_bytes=100000"), "\(line): \(get.stderr)")
        }
    }

    /// Item 11: a video whose origin changed between two requests of one prefix was printed with
    /// a smaller byte count and exit 0; the next read needed origin bytes.
    @Test func aVersionChangeMidPrefixWarmsTheNewVersionsWholePrefix() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let versions = [integrityBytes(500_000, seed: 51), integrityBytes(500_000, seed: 52)]
        let current = Version()
        let server = try ScriptedHTTPServer { request, _ in
            let version = current.value.load(ordering: .sequentiallyConsistent)
            let tag = [("ETag", "\"v\(version)\"")]
            if let ifRange = request.ifRange, ifRange != "\"v\(version)\"" { return .whole(versions[version], headers: tag) }
            return .partial(versions[version], request.byteRange ?? 0...499_999, headers: tag)
        }
        let video = server.url("/x.mp4").absoluteString
        let origin = try await Origin(in: folder, replace: ["videos/v3.mp4": video])
        let dir = folder.appending("c")
        // Given the first 50,000 bytes of the old version held
        let head = try await Tool.run(["video", "get", video, "--range", "0-49999", "--dir", dir.appendingPathComponent("video").path])
        #expect(head.status == 0, "\(head.stderr)")
        // When the origin's file changes and the prefix of 100,000 bytes is preloaded
        current.value.store(1, ordering: .sequentiallyConsistent)
        let result = try await Tool.run(["feed", "preload", origin.feed, "--index", "2", "--dir", dir.path, "--bytes", "100000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(videoLines(result).contains("video 3 \(video) bytes=100000 source=network"), "\(result.stdout)")
        // Then the new version's whole prefix is held
        let get = try await Tool.run(["video", "get", video, "--range", "0-99999", "--dir", dir.appendingPathComponent("video").path])
        #expect(get.status == 0 && get.stderr.contains("origin_bytes=0"), "\(get.stderr)")
        #expect(get.output == versions[1][0..<100_000])
    }

    static var binary: String { Tool.productsDirectory.appendingPathComponent("douyinkit").path }

    /// Runs `sh -c script sh arguments…` as root of a new user and mount namespace.
    private func inNamespace(_ script: String, _ arguments: [String]) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-r", "-m", "sh", "-c", script, "sh"] + arguments
        let (stdout, stderr) = try await process.runCapturingOutput()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Which version a scripted origin serves; its threads read it while the test sets it.
final class Version: Sendable {
    let value = Atomic<Int>(0)
}
