import DouyinSupport
import DouyinTestSupport
import douyinkit
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--out` (DESIGN.md: creates or replaces a regular file, never through or replacing anything
/// else), left from the last round: long temporary names, the replaced file's mode, the
/// temporary file only once bytes arrived, every byte through DouyinSupport's `FileIO`.
@Suite("--out files")
struct OutputFileTests {
    /// The names in `folder`, sorted.
    private static func names(in folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    private static func mode(of url: URL) -> mode_t {
        var info = stat()
        return stat(url.path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    // MARK: - Through the tool

    @Test func aDestinationNameOf250BytesStillGetsATemporaryFile() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try origin.serve(Data("fresh bytes".utf8), at: "/long.bin")
        // 83 three-byte characters and one ASCII: 250 bytes, so a temporary name built by
        // adding a prefix and a suffix must be cut, and cut at a character boundary.
        let name = String(repeating: "名", count: 83) + "x"
        #expect(name.utf8.count == 250)
        let out = folder.appending(name)
        let result = try await Tool.run(["cache", "get", origin.url("/long.bin").absoluteString, "--dir", folder.appending("cache").path, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: out) == Data("fresh bytes".utf8))
        #expect(try Self.names(in: folder) == ["cache", name])
    }

    @Test func aReplacedFileKeepsItsPermissionBits() async throws {
        let origin = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try origin.serve(Data("fresh bytes".utf8), at: "/mode.bin")
        let arguments = ["cache", "get", origin.url("/mode.bin").absoluteString, "--dir", folder.appending("cache").path, "--out"]
        let secret = folder.appending("secret")
        try Data("old".utf8).write(to: secret)
        #expect(chmod(secret.path, 0o600) == 0)
        let first = try await Tool.run(arguments + [secret.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Data(contentsOf: secret) == Data("fresh bytes".utf8))
        #expect(Self.mode(of: secret) == 0o600)
        // A set-user-ID file's replacement keeps the permission bits, never the set-ID bit.
        let program = folder.appending("program")
        try Data("old".utf8).write(to: program)
        #expect(chmod(program.path, 0o4750) == 0)
        let second = try await Tool.run(arguments + [program.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.mode(of: program) == 0o750)
    }

    @Test func aFailedDownloadLeavesNoTemporaryFileAndNoOutput() async throws {
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let out = folder.appending("out.bin")
        // Given an origin that holds the request until released, then answers 404,
        try backend.stall(next: 1, seconds: 120)
        let url = backend.baseURL.appendingPathComponent("no-such-image.webp").absoluteString
        async let running = Tool.run(["cache", "get", url, "--dir", folder.appending("cache").path, "--out", out.path])
        // while the download is under way nothing is beside the destination yet,
        try await backend.waitForRequests(1)
        #expect(try Self.names(in: folder).filter { $0 != "cache" } == [], "a temporary file before any byte arrived")
        // and once it failed, neither a temporary file nor the output is left.
        try backend.reset()
        let result = try await running
        #expect(result.status == 1)
        #expect(result.stderr.contains("HTTP 404"), "\(result.stderr)")
        #expect(try Self.names(in: folder).filter { $0 != "cache" } == [])
    }

    // MARK: - In process, through FileIO's fault seam (a mock for faults no disk makes on demand)

    @Test func checkingTheDestinationCreatesNothing() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("out.bin").path
        do {
            let file = try OutputFile(path: path)
            #expect(try Self.names(in: folder) == [])
            try file.write(Data("a".utf8))
            let names = try Self.names(in: folder)
            #expect(names.count == 1 && names[0].hasPrefix(".out.bin.douyinkit-"), "\(names)")
        }
        // Dropped without commit: the temporary file goes, nothing was created.
        #expect(try Self.names(in: folder) == [])
        let empty = try OutputFile(path: path)
        try empty.commit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data())
    }

    @Test func everyByteGoesThroughFileIOsWriteLoop() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("out.bin").path
        let faults = FaultInjector()
        // Interrupted and short writes: FileIO's loop retries and continues them.
        faults.fail(.pwrite, with: EINTR, times: 3)
        faults.limitTransfers(to: 999)
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try OutputFile(path: path, files: FileIO(syscalls: Syscalls.system.injecting(faults)))
        try file.write(body.prefix(40_000))
        try file.write(body.dropFirst(40_000))
        try file.commit()
        #expect(faults.injectedCount(.pwrite) == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
    }

    @Test(arguments: [FaultInjector.Call.pwrite, .fsync, .rename])
    func aFailingDiskLeavesTheOldFileAndNoTemporary(call: FaultInjector.Call) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.appending("out.bin").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let faults = FaultInjector()
        faults.fail(call, with: call == .pwrite ? ENOSPC : EIO)
        var reason: String?
        do {
            let file = try OutputFile(path: path, files: FileIO(syscalls: Syscalls.system.injecting(faults)))
            try file.write(Data("new bytes".utf8))
            try file.commit()
        } catch {
            if case .failed(let text) = error { reason = text }
        }
        #expect(reason == "cannot write \(path): \(String(cString: strerror(call == .pwrite ? ENOSPC : EIO)))")
        #expect(try Self.names(in: folder) == ["out.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
    }

    @Test func temporaryNamesStayWithinNAME_MAXAndCutAtACharacter() {
        let pieces = ["a", "é", "名", "😀"]
        for length in 0...300 {
            let name = String((0..<length).map { Character(pieces[$0 % pieces.count]) })
            let temporary = OutputFile.temporaryName(for: name, attempt: 100)
            #expect(temporary.utf8.count <= Int(NAME_MAX), "\(length) characters")
            // `.` + a prefix of the name (whole characters) + `.douyinkit-<pid>-<attempt>`.
            let suffix = ".douyinkit-\(getpid())-100"
            #expect(temporary.hasPrefix(".") && temporary.hasSuffix(suffix))
            let kept = temporary.dropFirst().dropLast(suffix.count)
            #expect(name.hasPrefix(kept), "\(length) characters")
            if name.utf8.count <= 200 { #expect(temporary.hasPrefix("." + name + ".douyinkit-")) }
        }
    }
}
