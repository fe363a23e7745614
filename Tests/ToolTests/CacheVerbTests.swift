import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit cache get")
struct CacheVerbTests {
    @Test func networkThenDiskWithTheSameBytes() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        try origin.serve(body, at: "/a.webp")
        let out = folder.appending("out.webp").path
        let dir = folder.appending("cache").path
        let first = try await Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("source=network"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == body)
        let second = try await Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir])
        #expect(second.stderr.contains("source=disk"))
        #expect(second.output == body)
        #expect(origin.requests().count == 1)
    }

    @Test func errorsExitOne() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = try await Tool.run(["cache", "get", origin.url("/missing").absoluteString, "--dir", folder.url.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("HTTP 404"))
        #expect(try await Tool.run(["cache", "get", "not a url", "--dir", folder.url.path]).status == 2)
        #expect(try await Tool.run(["cache", "get", origin.url("/x").absoluteString]).status == 2)
    }

    // MARK: - Case 5: `--out` creates or replaces only a regular file

    /// Serves a small body and returns the tool's arguments for fetching it with `--out path`.
    private func arguments(origin: NginxOrigin, folder: TemporaryDirectory, out path: String) throws -> [String] {
        try origin.serve(Data("fresh bytes".utf8), at: "/out.bin")
        return ["cache", "get", origin.url("/out.bin").absoluteString, "--dir", folder.appending("cache").path, "--out", path]
    }

    @Test func outWritesThroughSymlinksRegression() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let victim = folder.appending("victim"), link = folder.appending("link")
        try Data("victim's own bytes".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)

        let result = try await Tool.run(try arguments(origin: origin, folder: folder, out: link.path))

        #expect(result.status == 1)
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try Data(contentsOf: victim) == Data("victim's own bytes".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == victim.path)
        // A refused --out costs no download.
        #expect(origin.requests().isEmpty)
    }

    @Test func outNeverCreatesADanglingSymlinksTarget() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let target = folder.appending("not-yet"), link = folder.appending("dangling")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try await Tool.run(try arguments(origin: origin, folder: folder, out: link.path))
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test func outReplacesDevicesRegression() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // /dev/null itself, read-only: as root the old code turned it into a regular file.
        let result = try await Tool.run(try arguments(origin: origin, folder: folder, out: "/dev/null"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("a device"), "\(result.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
        // A FIFO: opening it for writing would block on a reader; it must not even be opened.
        let fifo = folder.appending("fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let piped = try await Tool.run(try arguments(origin: origin, folder: folder, out: fifo.path))
        #expect(piped.status == 1)
        #expect(piped.stderr.contains("FIFO"), "\(piped.stderr)")
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func outRefusesADirectory() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.appending("a-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let result = try await Tool.run(try arguments(origin: origin, folder: folder, out: directory.path))
        #expect(result.status == 1)
        #expect(result.stderr.contains("a directory"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func outReplacesARegularFileAndLeavesNoTemporaryFile() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let out = folder.appending("out.bin"), twin = folder.appending("twin")
        try Data("old, longer contents of the output".utf8).write(to: out)
        // A hard link to the old file keeps the old bytes: the name is replaced, not the inode.
        try FileManager.default.linkItem(at: out, to: twin)
        let result = try await Tool.run(try arguments(origin: origin, folder: folder, out: out.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: out) == Data("fresh bytes".utf8))
        #expect(try Data(contentsOf: twin) == Data("old, longer contents of the output".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["cache", "out.bin", "twin"])
        // A relative path with no directory part works too.
        let relative = try await Tool.run(try arguments(origin: origin, folder: folder, out: "relative.bin"), in: folder.url)
        #expect(relative.status == 0, "\(relative.stderr)")
        #expect(try Data(contentsOf: folder.appending("relative.bin")) == Data("fresh bytes".utf8))
    }

    // MARK: - Case 8: an origin with gzip_static

    /// Serves `body` and its gzip beside it (made by the real gzip) under `prefix`.
    private func serveWithGzipBeside(_ body: Data, at path: String, origin: NginxOrigin) async throws {
        try origin.serve(body, at: path)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", "-9", origin.root.appendingPathComponent(String(path.dropFirst())).path]
        try await gzip.runToExit()
        #expect(gzip.terminationStatus == 0)
    }

    @Test func gzipStaticOriginFailedComparingUnpackedBytesWithPackedLengthRegression() async throws {
        // Given an nginx that serves a packed copy to clients that accept gzip, and one that
        // serves it to every client (`always`), each with a compressible 2,000,001-byte file
        let origin = try await NginxOrigin.start(extraLocations: """
            location /static/ { gzip_static on; }
            location /always/ { gzip_static always; }
            """)
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let body = Data(repeating: UInt8(ascii: "a"), count: 2_000_001)
        try await serveWithGzipBeside(body, at: "/static/big.txt", origin: origin)
        try await serveWithGzipBeside(body, at: "/always/big.txt", origin: origin)
        for path in ["/static/big.txt", "/always/big.txt"] {
            // When the cache fetches it, then reads it again from disk
            let out = folder.appending("out").path
            let dir = folder.appending("cache").path
            let first = try await Tool.run(["cache", "get", origin.url(path).absoluteString, "--dir", dir, "--out", out])
            // Then both answers are the file's own bytes (main failed: "got 2000001 of 1983 bytes")
            #expect(first.status == 0, "\(path): \(first.stderr)")
            #expect(first.stderr.contains("source=network"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == body, "\(path)")
            let second = try await Tool.run(["cache", "get", origin.url(path).absoluteString, "--dir", dir])
            #expect(second.stderr.contains("source=disk"), "\(path): \(second.stderr)")
            #expect(second.output == body, "\(path)")
        }
        // The cache asked for identity, so `gzip_static on` sent the plain file.
        let sent = origin.requests().filter { $0.uri == "/static/big.txt" }.map(\.bytesSent)
        #expect(sent.count == 1 && sent[0] > 2_000_001)
    }

    // MARK: - Case 3: the disk tier checks length and checksum on every read

    @Test func twoTierCacheServesATruncatedFileRegression() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var random = SeededRandom(seed: 3)
        let body = Data(random.bytes(2_000_000))
        try origin.serve(body, at: "/big.bin")
        let url = origin.url("/big.bin").absoluteString, dir = folder.appending("cache").path
        #expect(try await Tool.run(["cache", "get", url, "--dir", dir]).status == 0)
        // The one entry file (md5-named, beside the hidden manifest).
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { !$0.hasPrefix(".") })
        let file = folder.appending("cache/\(name)")
        // `truncate -s 1000000`: main answered exit 0, source=disk, 1,000,000 bytes.
        #expect(truncate(file.path, 1_000_000) == 0)
        let truncated = try await Tool.run(["cache", "get", url, "--dir", dir])
        #expect(truncated.status == 0, "\(truncated.stderr)")
        #expect(truncated.stderr.contains("source=network"), "\(truncated.stderr)")
        #expect(truncated.output == body)
        // A flipped byte, same length: fetched again too; then the repaired entry serves from disk.
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: file)
        let flipped = try await Tool.run(["cache", "get", url, "--dir", dir])
        #expect(flipped.stderr.contains("source=network") && flipped.output == body, "\(flipped.stderr)")
        let repaired = try await Tool.run(["cache", "get", url, "--dir", dir])
        #expect(repaired.stderr.contains("source=disk") && repaired.output == body, "\(repaired.stderr)")
        #expect(origin.requests().filter { $0.uri == "/big.bin" }.count == 3)
    }
}
