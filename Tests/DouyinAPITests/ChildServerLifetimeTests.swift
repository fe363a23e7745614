import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// The servers the tests start must not outlive the test process, nor hold its output: a crash
/// of the test process once left the backend running with the test's stderr, and `swift test`
/// waited for that pipe to close until CI's 90 minutes ran out.
@Suite("Harness: a started server holds neither our output nor a life of its own")
struct ChildServerLifetimeTests {
    #if os(Linux)
    @Test func theBackendWritesToPipesOfItsOwnNotToTheTestsOutput() async throws {
        let backend = try await LocalBackend.start()
        let pid = try #require(backend.processIdentifier)
        for descriptor in [1, 2] {
            let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            let its = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
            #expect(its != ours, "the backend's descriptor \(descriptor) is ours: \(ours)")
        }
    }
    #endif

    #if os(Linux)
    /// Spawns made at the same moment from many threads pass no child another's socket end.
    ///
    /// corelibs learns that a child ended when the child's end of a socket pair closes; that end
    /// is open in this process, without close-on-exec, from the moment `run()` makes it until
    /// its spawn is done, and a spawn on another thread meanwhile passed it on to its own child
    /// (which closes only the descriptors it found open before). A long-lived child holding
    /// another's end hides that one's exit for as long as it lives: a whole-suite run once stood
    /// still on two `waitUntilExit()`s of backends left as zombies. Here twenty-four long-lived
    /// children (`cat`, until their stdin closes) start together with forty-eight `true`s; each
    /// long-lived child must hold exactly one Unix socket, its own.
    /// Six rounds at once: without the spawn lock 4 runs of 4 failed (9 to 46 issues each).
    @Test(.timeLimit(.minutes(HangGuard.minutes)), arguments: 0..<6)
    func concurrentSpawnsPassNoChildAnothersSocketEnd(round: Int) async throws {
        let holders = (0..<24).map { _ in Holder() }
        let ends = LockedBox<[ProcessEnd]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for holder in holders {
                group.addTask {
                    let end = try await holder.process.start()
                    ends.withLock { $0.append(end) }
                }
            }
            for _ in 0..<48 {
                group.addTask {
                    let short = Process()
                    short.executableURL = URL(fileURLWithPath: "/bin/true")
                    let end = try await short.start()
                    ends.withLock { $0.append(end) }
                }
            }
            try await group.waitForAll()
        }
        let unixSockets = try Self.unixSocketInodes()
        for holder in holders {
            let held = try Self.socketInodes(of: holder.process.processIdentifier).filter(unixSockets.contains)
            #expect(held.count == 1, "round \(round): child \(holder.process.processIdentifier) holds \(held.count) Unix sockets")
        }
        // Every end is awaited only once the long-lived children were let go: a short one's
        // end they held is seen then too, so a failure here is reported, not a hang.
        for holder in holders { try holder.input.fileHandleForWriting.close() }
        for end in ends.withLock({ $0 }) { await end.wait() }
    }

    /// The inodes of the sockets among `pid`'s descriptors.
    private static func socketInodes(of pid: Int32) throws -> [String] {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")
            guard let target, target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        }
    }

    /// The inodes of every Unix socket on the machine (`/proc/net/unix`, seventh column).
    private static func unixSocketInodes() throws -> Set<String> {
        // Read to its end: procfs gives the file's size as 0, so a read by size gets nothing.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/unix"))
        defer { try? file.close() }
        let table = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return Set(table.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return columns.count > 6 ? String(columns[6]) : nil
        })
    }
    #endif

    /// A child that never ends is ended at its time limit, and the result says so.
    @Test func aChildPastItsTimeLimitIsEndedBySignal() async throws {
        let result = try await Tool.run(["3600"], executable: URL(fileURLWithPath: "/bin/sleep"), timeLimit: .milliseconds(200))
        #expect(result.status == SIGTERM)
        #expect(result.stderr.contains("[the harness: ended by signal 15; time limit 0.2 seconds]"), "\(result.stderr)")
    }

    @Test func theBackendEndsByItselfWhenItsStdinCloses() async throws {
        // Found on a thread of its own: the first look runs Python probes and waits for them.
        let python = try #require(try await onOwnThread { LocalBackend.python })
        let input = Pipe()
        let (process, port, end) = try await onOwnThread {
            try startServer("the backend", python: python, script: LocalBackend.script,
                            arguments: ["--fixtures", LocalBackend.fixtures.appendingPathComponent("api").path, "--until-stdin-closes"],
                            input: input)
        }
        #expect(port > 0)
        // What the kernel does for a test process that dies: the pipe's only writer goes away.
        try input.fileHandleForWriting.close()
        // A hang guard, not the assertion: a backend still running after 60 s is ended by
        // signal, which the reason below then reports.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
        await end.wait()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}

/// A `cat` that lives until its stdin closes.
private struct Holder: @unchecked Sendable {
    // @unchecked: the Process is configured here and then only started, waited for and read
    // once it ended; the Pipe's write end is closed once.
    let process = Process()
    let input = Pipe()

    init() {
        process.executableURL = URL(fileURLWithPath: "/bin/cat")
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        // Not the test process's stderr: that may itself be a Unix socket (a log collector's),
        // which every child would then hold besides its own.
        process.standardError = FileHandle.nullDevice
    }
}
