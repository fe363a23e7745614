import DouyinTestSupport
import Foundation
import Testing

/// The servers the tests start must not outlive the test process, nor hold its output: a crash
/// of the test process once left the backend running with the test's stderr, and `swift test`
/// waited for that pipe to close until CI's 90 minutes ran out.
@Suite("Harness: a started server holds neither our output nor a life of its own")
struct ChildServerLifetimeTests {
    #if os(Linux)
    @Test func theBackendWritesToPipesOfItsOwnNotToTheTestsOutput() throws {
        let backend = try LocalBackend()
        let pid = try #require(backend.processIdentifier)
        for descriptor in [1, 2] {
            let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            let its = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
            #expect(its != ours, "the backend's descriptor \(descriptor) is ours: \(ours)")
        }
    }
    #endif

    /// A child that never ends is ended at its time limit, and the result says so.
    @Test func aChildPastItsTimeLimitIsEndedBySignal() async throws {
        let result = try await Tool.run(["3600"], executable: URL(fileURLWithPath: "/bin/sleep"), timeLimit: .milliseconds(200))
        #expect(result.status == SIGTERM)
        #expect(result.stderr.contains("[the harness: ended by signal 15; time limit 0.2 seconds]"), "\(result.stderr)")
    }

    @Test func theBackendEndsByItselfWhenItsStdinCloses() async throws {
        let python = try #require(LocalBackend.python)
        let input = Pipe()
        let (process, port) = try await onOwnThread {
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
        _ = try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
