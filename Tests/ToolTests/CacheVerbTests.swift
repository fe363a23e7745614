import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit cache get")
struct CacheVerbTests {
    @Test func networkThenDiskWithTheSameBytes() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        try origin.serve(body, at: "/a.webp")
        let out = folder.appending("out.webp").path
        let dir = folder.appending("cache").path
        let first = try Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("source=network"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == body)
        let second = try Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir])
        #expect(second.stderr.contains("source=disk"))
        #expect(second.output == body)
        #expect(origin.requests().count == 1)
    }

    @Test func errorsExitOne() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = try Tool.run(["cache", "get", origin.url("/missing").absoluteString, "--dir", folder.url.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("HTTP 404"))
        #expect(try Tool.run(["cache", "get", "not a url", "--dir", folder.url.path]).status == 2)
        #expect(try Tool.run(["cache", "get", origin.url("/x").absoluteString]).status == 2)
    }

    // MARK: - Case 5: `--out` creates or replaces only a regular file

    /// Serves a small body and returns the tool's arguments for fetching it with `--out path`.
    private func arguments(origin: NginxOrigin, folder: TemporaryDirectory, out path: String) throws -> [String] {
        try origin.serve(Data("fresh bytes".utf8), at: "/out.bin")
        return ["cache", "get", origin.url("/out.bin").absoluteString, "--dir", folder.appending("cache").path, "--out", path]
    }

    @Test func outWritesThroughSymlinksRegression() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let victim = folder.appending("victim"), link = folder.appending("link")
        try Data("victim's own bytes".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)

        let result = try Tool.run(try arguments(origin: origin, folder: folder, out: link.path))

        #expect(result.status == 1)
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try Data(contentsOf: victim) == Data("victim's own bytes".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == victim.path)
        // A refused --out costs no download.
        #expect(origin.requests().isEmpty)
    }

    @Test func outNeverCreatesADanglingSymlinksTarget() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let target = folder.appending("not-yet"), link = folder.appending("dangling")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try Tool.run(try arguments(origin: origin, folder: folder, out: link.path))
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test func outReplacesDevicesRegression() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // /dev/null itself, read-only: as root the old code turned it into a regular file.
        let result = try Tool.run(try arguments(origin: origin, folder: folder, out: "/dev/null"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("a device"), "\(result.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
        // A FIFO: opening it for writing would block on a reader; it must not even be opened.
        let fifo = folder.appending("fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let piped = try Tool.run(try arguments(origin: origin, folder: folder, out: fifo.path))
        #expect(piped.status == 1)
        #expect(piped.stderr.contains("FIFO"), "\(piped.stderr)")
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func outRefusesADirectory() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let directory = folder.appending("a-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let result = try Tool.run(try arguments(origin: origin, folder: folder, out: directory.path))
        #expect(result.status == 1)
        #expect(result.stderr.contains("a directory"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func outReplacesARegularFileAndLeavesNoTemporaryFile() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let out = folder.appending("out.bin"), twin = folder.appending("twin")
        try Data("old, longer contents of the output".utf8).write(to: out)
        // A hard link to the old file keeps the old bytes: the name is replaced, not the inode.
        try FileManager.default.linkItem(at: out, to: twin)
        let result = try Tool.run(try arguments(origin: origin, folder: folder, out: out.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: out) == Data("fresh bytes".utf8))
        #expect(try Data(contentsOf: twin) == Data("old, longer contents of the output".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["cache", "out.bin", "twin"])
        // A relative path with no directory part works too.
        let relative = try Tool.run(try arguments(origin: origin, folder: folder, out: "relative.bin"), in: folder.url)
        #expect(relative.status == 0, "\(relative.stderr)")
        #expect(try Data(contentsOf: folder.appending("relative.bin")) == Data("fresh bytes".utf8))
    }
}
