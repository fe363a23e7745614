import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
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

    /// Spawns made at the same moment from many threads each see their own child end.
    ///
    /// corelibs learns that a child ended when the child's end of a socket pair closes; that end
    /// is open in this process, without close-on-exec, from the moment `run()` makes it until
    /// its spawn is done, and a spawn on another thread meanwhile passed it on to its own child
    /// (which closes only the descriptors it found open before). A long-lived child holding
    /// another's end hides that one's exit for as long as it lives: a whole-suite run once stood
    /// still on two `waitUntilExit()`s of backends left as zombies. Here twenty-four long-lived
    /// children (`cat`, until their stdin closes) start together with forty-eight `true`s, and
    /// every `true` must be seen to end while the `cat`s still live. The `cat`s are let go when the
    /// test's time limit cancels it, so a hidden end fails the test instead of hanging it. (A
    /// first version let them go after 30 s, and failed in CI on a machine that stood still
    /// longer than that: a timing assertion in disguise.) Without the
    /// spawn lock it failed 1 run of 2 (a first version, counting the Unix sockets each `cat`
    /// held, failed 4 of 4, but in a whole-suite run other code's socket pairs, made outside
    /// the lock, leaked in too and it failed with the lock as well).
    @Test(.hangGuard, arguments: 0..<6)
    func concurrentSpawnsEachSeeTheirOwnChildEnd(round: Int) async throws {
        let holders = (0..<24).map { _ in Holder() }
        let holderEnds = LockedBox<[ProcessEnd]>([])
        let shortEnds = LockedBox<[ProcessEnd]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for holder in holders {
                group.addTask {
                    let end = try await holder.process.start()
                    holderEnds.withLock { $0.append(end) }
                }
            }
            for _ in 0..<48 {
                group.addTask {
                    let short = Process()
                    short.executableURL = URL(fileURLWithPath: "/bin/true")
                    let end = try await short.start()
                    shortEnds.withLock { $0.append(end) }
                }
            }
            try await group.waitForAll()
        }
        let letGo = LockedBox(false)
        let release = { @Sendable in
            letGo.withLock { $0 = true }
            for holder in holders { try? holder.input.fileHandleForWriting.close() }
        }
        // No timer races the ends: a loaded machine may take any time to report them. Only the
        // test's time limit, which cancels this task, lets the `cat`s go before every end was
        // seen, and so turns a hidden end into the failure below instead of a hang.
        await withTaskCancellationHandler {
            for end in shortEnds.withLock({ $0 }) { await end.wait() }
        } onCancel: {
            release()
        }
        let seenWhileHeld = !letGo.withLock { $0 }
        release()
        for end in holderEnds.withLock({ $0 }) { await end.wait() }
        #expect(seenWhileHeld, "round \(round): a short child's end was seen only once the long-lived ones ended")
    }

    /// Children whose stderr is forwarded (``Pipe/forwardedToStandardError()``), started by
    /// the thousand from eight tasks and let go at once, half of them before they were seen to
    /// end, never crash the process. The forwarding was a readability handler, whose dispatch
    /// source was cancelled at the pipe's end while the pipe itself closed as soon as its
    /// `Process` went away: libdispatch's event thread then crashed in
    /// `_dispatch_event_loop_drain`, in a whole-suite run while a test stopped the backend, and
    /// in this test in 4 runs of 4 (6 of 6 at twice the children; 0 of 5 with the copy on a
    /// thread of its own). A crash of the test process is this test's failure.
    @Test(.hangGuard) func forwardedStderrOfChildrenLetGoAtOnceNeverCrashes() async throws {
        let started = LockedBox(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: "/bin/true")
                        process.standardError = Pipe.forwardedToStandardError()
                        let end = try await process.start()
                        started.withLock { $0 += 1 }
                        if index.isMultiple(of: 2) { await end.wait() }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(started.withLock { $0 } == 1600)
    }

    /// A child that cannot start (no such program) is a thrown error from `start()`, twice in a
    /// row. Its `ProcessEnd` is let go on that path; the crash a group freed while entered was
    /// said to cause did not happen here without that (this test passed either way).
    @Test func aChildThatCannotStartIsAThrownErrorNotACrash() async throws {
        for _ in 0..<2 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/nonexistent/douyinkit-no-such-program")
            await #expect(throws: (any Error).self) { try await process.start() }
        }
    }

    /// A child that never ends is ended at its time limit, and the result says so.
    @Test func aChildPastItsTimeLimitIsEndedBySignal() async throws {
        let result = try await Tool.run(["3600"], executable: URL(fileURLWithPath: "/bin/sleep"), timeLimit: .milliseconds(200))
        #expect(result.status == SIGTERM)
        #expect(result.stderr.contains("[the harness: ended by signal 15; time limit 0.2 seconds]"), "\(result.stderr)")
    }

    /// A child still running shortly before its limit gets every thread's stack in the
    /// result (gdb attached for a moment), so a hang seen only on a loaded CI machine says
    /// where it stood. Needs gdb (Debian's `gdb`; skipped without it). The child is looked
    /// into 2 s after it starts and ends by itself at 30 s, long before its 60 s limit: gdb
    /// has that long to attach even on a loaded machine (with a 3 s limit, a whole-suite run
    /// under Thread Sanitizer once ended the child before gdb had started).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb")))
    func aChildNearItsTimeLimitHasItsStacksRecorded() async throws {
        let result = try await Tool.run(["30"], executable: URL(fileURLWithPath: "/bin/sleep"), timeLimit: .seconds(60),
                                        stacksBefore: .seconds(58))
        #expect(result.status == 0)
        #expect(result.stderr.contains("[the harness: every thread's stack 58.0 seconds before the time limit]"), "\(result.stderr)")
        #expect(result.stderr.contains("nanosleep"), "\(result.stderr)")
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
        // A hang guard, not the assertion: a backend still running after 300 s is ended by
        // signal, which the reason below then reports.
        DispatchQueue.global().asyncAfter(deadline: .now() + 300) { if process.isRunning { process.terminate() } }
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
