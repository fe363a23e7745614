import DouyinTestSupport
import Foundation
import Testing

/// Issue 36 item 2: every file a verb reads by path goes through the package's one bounded,
/// regular-files-only reader. `emotions parse --table <fifo>` hung on a FIFO with no writer,
/// and `/dev/zero` and `/dev/urandom` grew the tool past 780 MB until it was killed: a FIFO,
/// a device, a directory or a file over the limit is refused at once, exit 1, with a line that
/// names the file and what it is.
@Suite("Special files where a verb reads a file")
struct SpecialFileTests {
    /// Each command line that reads `path` as a file, one a place a path is taken.
    static func readers(of path: String, folder: URL) -> [[String]] {
        let feed = Fixtures.url("api/feed.json").path, out = folder.appending(path: "out").path
        return [
            ["emotions", "parse", "x", "--table", path],
            ["decode", "user", path],
            ["gift-sim", path],
            ["webp-frames", path, "--out", out],
            ["feed", "preload", path, "--index", "0", "--dir", out],
            ["feed", "session", path, "--trace", path, "--dir", out],
            ["feed", "session", feed, "--trace", path, "--dir", out],
            ["chat", "listen", "wss://127.0.0.1:1/", "--cacert", path, "--timeout", "1"],
            ["ws", "echo", "wss://127.0.0.1:1/", "--cacert", path, "--timeout", "1"],
            ["api", "groupchat/image", "udid=u", "--base", "http://127.0.0.1:1/douyin/", "--file", path],
        ]
    }

    /// Runs every reader of `path` at once and expects each to exit 1 on stderr's one line
    /// naming `path` and `saying`. A run that reads on is ended at the bound and fails here.
    static func expectRefused(_ path: String, saying: String, folder: URL) async throws {
        try await withThrowingTaskGroup(of: (arguments: [String], result: Tool.Result).self) { group in
            for arguments in readers(of: path, folder: folder) {
                // A must-not-hang bound: a refusal takes milliseconds, a FIFO read never ends.
                group.addTask { (arguments, try await Tool.run(arguments, timeLimit: .seconds(120))) }
            }
            for try await (arguments, result) in group {
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                // The API's own upload reader says "is not a regular file" for every kind.
                let says = lines.first.map { $0.contains(saying) || arguments[0] == "api" && $0.contains("is not a regular file") } ?? false
                #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && lines[0].contains(path) && says,
                        "\(arguments): \(result.stderr)")
            }
        }
    }

    @Test func aFIFOWithNoWriterIsRefusedAtOnce() async throws {
        try await withTemporaryDirectory { folder in
            let fifo = folder.appending("table.json").path
            #expect(mkfifo(fifo, 0o644) == 0)
            try await Self.expectRefused(fifo, saying: "not a regular file", folder: folder.url)
        }
    }

    @Test(arguments: ["/dev/zero", "/dev/urandom", "/dev/null"])
    func aDeviceIsRefusedBeforeAByteIsRead(_ device: String) async throws {
        try await withTemporaryDirectory { folder in
            try await Self.expectRefused(device, saying: "not a regular file", folder: folder.url)
        }
    }

    @Test func aDirectoryIsAClearError() async throws {
        try await withTemporaryDirectory { folder in
            let directory = folder.appending("feed.json").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try await Self.expectRefused(directory, saying: "directory", folder: folder.url)
        }
    }

    /// A regular file past the limit (sparse: no disk is used) is refused by its size, before
    /// it is read. The API's upload limit is 20 MiB, the tool's 64 MiB: both are passed.
    @Test func aFileOverTheLimitIsRefusedBeforeItIsRead() async throws {
        try await withTemporaryDirectory { folder in
            let huge = folder.appending("huge.json")
            #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
            let handle = try FileHandle(forWritingTo: huge)
            try handle.truncate(atOffset: (64 << 20) + 1)
            try handle.close()
            let result = try await Tool.run(["decode", "user", huge.path])
            #expect(result.status == 1)
            #expect(result.stderr == "error: cannot read \(huge.path): it has 67108865 bytes, more than the limit of 67108864\n")
            try await Self.expectRefused(huge.path, saying: "67108865 bytes", folder: folder.url)
        }
    }
}
