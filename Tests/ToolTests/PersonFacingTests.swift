import DouyinTestSupport
import Foundation
import Testing

/// The tool as a person meets it (issue 26 §4): help and version on stdout with exit 0, errors
/// that name the missing option, the malformed value and the unreadable file's reason, and no
/// binary data on a terminal.
@Suite("douyinkit for a person")
struct PersonFacingTests {
    static let verbNames = ["demo", "decode", "cache", "webp-frames", "video", "feed", "gift-sim", "api", "emotions", "chat"]

    @Test(arguments: ["--help", "-h", "help"])
    func helpListsEveryVerbWithWhatItDoesOnStdout(_ flag: String) async throws {
        let result = try await Tool.run([flag])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for name in Self.verbNames {
            // One line per verb: its name, then words saying what it does.
            let line = lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + " ") }
            #expect(line != nil, "no line for \(name) in \(result.stdout)")
            #expect((line ?? "").split(separator: " ").count >= 4, "\(line ?? "")")
        }
    }

    @Test(arguments: ["demo", "decode", "cache", "webp-frames", "video", "feed", "gift-sim", "api", "emotions", "chat"])
    func eachVerbsHelpIsItsUsageOnStdout(_ verb: String) async throws {
        let result = try await Tool.run([verb, "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("usage: douyinkit \(verb)"), "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    @Test func versionPrintsTheVersion() async throws {
        let result = try await Tool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^douyinkit \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
    }

    @Test func noVerbOrAnUnknownOneIsAUsageErrorThatSaysSo() async throws {
        let none = try await Tool.run([])
        #expect(none.status == 2)
        #expect(none.stdout.isEmpty)
        let unknown = try await Tool.run(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("unknown verb \"frobnicate\""), "\(unknown.stderr)")
    }

    @Test func aMissingOptionNamesItself() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cases: [([String], String)] = [
            (["cache", "get", "http://127.0.0.1:1/a"], "missing --dir <dir>"),
            (["cache", "get"], "missing <url>"),
            (["video", "get", "http://127.0.0.1:1/a", "--dir", folder.url.path], "missing --range <first>-<last>"),
            (["video", "get", "http://127.0.0.1:1/a", "--range", "0-1"], "missing --dir <dir>"),
            (["feed", "preload", "f.json", "--dir", folder.url.path], "missing --index I"),
            (["feed", "preload", "f.json", "--index", "0"], "missing --dir <dir>"),
            (["webp-frames", "a.webp"], "missing --out <dir>"),
            (["api", "user", "uid=1"], "missing --base <url>"),
            (["decode", "user"], "missing <file>"),
            (["gift-sim"], "missing <script>"),
            (["emotions", "parse"], "missing <text>"),
        ]
        for (arguments, message) in cases {
            let result = try await Tool.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aMalformedURLSaysWhatIsWrongNotThatItIsRequired() async throws {
        let noScheme = try await Tool.run(["api", "user", "uid=1", "--base", "127.0.0.1:8080/douyin"])
        #expect(noScheme.status == 2)
        #expect(noScheme.stderr.hasPrefix("--base \"127.0.0.1:8080/douyin\" has no scheme"), "\(noScheme.stderr)")
        #expect(!noScheme.stderr.contains("required"))
        let hostAsScheme = try await Tool.run(["api", "user", "uid=1", "--base", "localhost:8080/douyin/"])
        #expect(hostAsScheme.stderr.hasPrefix("--base \"localhost:8080/douyin/\" has no scheme"), "\(hostAsScheme.stderr)")
        let ftp = try await Tool.run(["api", "user", "--base", "ftp://h/douyin/"])
        #expect(ftp.stderr.hasPrefix("--base \"ftp://h/douyin/\" has the scheme ftp: expected http or https"), "\(ftp.stderr)")
        let cache = try await Tool.run(["cache", "get", "not a url", "--dir", "/tmp"])
        #expect(cache.status == 2)
        #expect(cache.stderr.hasPrefix("<url> \"not a url\""), "\(cache.stderr)")
    }

    @Test func anUnknownEndpointSaysSo() async throws {
        let result = try await Tool.run(["api", "users", "uid=1", "--base", "http://127.0.0.1:1/douyin/"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("endpoint \"users\" is not one of the endpoints below"), "\(result.stderr)")
        #expect(result.stderr.contains("aweme/post"))
    }

    @Test func cannotReadSaysWhy() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = folder.appending("missing.json").path
        let directory = folder.url.path
        let cases: [([String], String)] = [
            (["decode", "user", missing], "cannot read \(missing): no such file"),
            (["decode", "user", directory], "cannot read \(directory): it is a directory"),
            (["gift-sim", missing], "cannot read \(missing): no such file"),
            (["webp-frames", directory, "--out", folder.appending("frames").path], "cannot read \(directory): it is a directory"),
            (["emotions", "parse", "x", "--table", missing], "cannot read \(missing): no such file"),
            (["feed", "preload", directory, "--index", "0", "--dir", folder.appending("c").path], "cannot read \(directory): it is a directory"),
            (["decode", "user", missing + "/x"], "cannot read \(missing)/x: no such file"),
        ]
        for (arguments, message) in cases {
            let result = try await Tool.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "error: \(message)\n", "\(arguments)")
        }
    }

    /// Permission: the tests run as root here, who may read anything, so the file is read by
    /// the tool run as `nobody` through setpriv (util-linux).
    @Test func cannotReadAFileWithoutPermissionSaysSo() async throws {
        let file = URL(fileURLWithPath: "/tmp/douyinkit-unreadable-\(UUID().uuidString).json")
        try Data("{}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let setpriv = "/usr/bin/setpriv"
        #expect(FileManager.default.isExecutableFile(atPath: setpriv), "setpriv (util-linux) is needed")
        if getuid() == 0 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: setpriv)
            let tool = Tool.productsDirectory.appendingPathComponent("douyinkit").path
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "decode", "user", file.path]
            let stderr = String(decoding: try await process.runCapturingOutput().stderr, as: UTF8.self)
            #expect(process.terminationStatus == 1, "\(stderr)")
            #expect(stderr == "error: cannot read \(file.path): permission denied\n")
        } else {
            let result = try await Tool.run(["decode", "user", file.path])
            #expect(result.stderr == "error: cannot read \(file.path): permission denied\n")
        }
    }

    @Test func binaryDataIsNotWrittenToATerminal() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cover = Fixtures.url("webp/covers/cover-0.webp").absoluteString
        let refused = try await runOnTerminal(["cache", "get", cover, "--dir", folder.appending("c").path])
        #expect(refused.status == 1)
        #expect(refused.terminal.isEmpty, "\(refused.terminal.count) bytes reached the terminal")
        #expect(refused.stderr.hasPrefix("error: not writing binary data to a terminal: give --out <file>, or --out -"), "\(refused.stderr)")
        // Nothing fetched: the refusal comes before the download.
        #expect(!FileManager.default.fileExists(atPath: folder.appending("c").path))
        let video = try await runOnTerminal(["video", "get", Fixtures.url("video/clip.mp4").absoluteString, "--range", "0-9", "--dir", folder.appending("v").path])
        #expect(video.status == 1)
        #expect(video.terminal.isEmpty)
        // `--out -` is the user saying "here anyway"; a pipe or file needs nothing.
        let asked = try await runOnTerminal(["video", "get", Fixtures.url("video/clip.mp4").absoluteString, "--range", "0-9", "--dir", folder.appending("v").path, "--out", "-"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.terminal.count >= 10)
        let piped = try await Tool.run(["cache", "get", cover, "--dir", folder.appending("c").path])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.output == (try Fixtures.data("webp/covers/cover-0.webp")))
    }

    @Test func chatListenWithoutUdidSendsTheDefault() async throws {
        // The backend refuses an upgrade without a udid header (HTTP 400).
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        // Refused, it would give up at once (a 4xx is final); accepted, it listens until the
        // timeout (then exit 0, as no --count was asked). 10 s, not 1: the handshake must fit
        // in it, and a loaded machine has stood still far longer than 1 s.
        let result = try await Tool.run(["chat", "listen", "ws://127.0.0.1:\(backend.port)/douyin/groupchat", "--timeout", "10"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("state=open"), "\(result.stderr)")
        #expect(!result.stderr.contains("400"), "\(result.stderr)")
    }

    @Test func aBadEmotionTableNamesTheFileAndTheByte() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let table = folder.appending("table.json")
        try Data("{\"a\": x}".utf8).write(to: table)
        let result = try await Tool.run(["emotions", "parse", "x", "--table", table.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: \(table.path): "), "\(result.stderr)")
        #expect(result.stderr.contains("byte 6"), "\(result.stderr)")
        let readme = try await Tool.run(["emotions", "parse", "x", "--table", Fixtures.packageRoot.appendingPathComponent("README.md").path])
        #expect(readme.stderr.contains("README.md: not valid JSON at byte 0"), "\(readme.stderr)")
    }
}
