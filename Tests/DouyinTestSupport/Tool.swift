import DouyinSupport
import Foundation

/// Runs the built `douyinkit` binary, as scripts and other programs use it.
public enum Tool {
    /// What one run printed and how it exited.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to stdout, as bytes.
        public var output: Data
        /// Everything written to stdout, as text.
        public var stdout: String { String(decoding: output, as: UTF8.self) }
        /// Everything written to stderr.
        public var stderr: String
    }

    /// The directory SwiftPM builds products into, found from the running test binary.
    public static let productsDirectory: URL = {
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    /// Runs `douyinkit` (or another `executable`) with `arguments` in `directory` (the package
    /// root by default) and waits for it without blocking a thread (`Process.runToExit()`): two
    /// demo runs blocked in `waitUntilExit()` once stalled unrelated tests for 30 s.
    ///
    /// A run still going after `timeLimit` (10 minutes by default; the demo takes 1-2) is ended
    /// by signal and its stderr ends with a line saying so: a hung child once held a whole test
    /// run until its own time ran out. With gdb installed, a run still going `stacksBefore`
    /// the limit (30 s by default) also gets every thread's stack appended to its stderr.
    public static func run(_ arguments: [String], in directory: URL = Fixtures.packageRoot,
                           executable: URL = productsDirectory.appendingPathComponent("douyinkit"),
                           timeLimit: Duration = .seconds(600), stacksBefore: Duration = .seconds(30)) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let watched = WatchedProcess(process: process)
        let stacks = LockedBox<Task<String?, Never>?>(nil)
        // A slot of eight: see ChildSlots for why the test process must not start a hundred.
        let output: Data, errors: Data
        do {
            (output, errors) = try await ChildSlots.shared.withSlot {
                // Timed from here, not from the wait for a slot, which the child's limit does not count.
                stacks.withLock { $0 = Task.detached { await watched.stacksIfStillRunning(after: timeLimit - stacksBefore) } }
                return try await process.runCapturingOutput(timeLimit: timeLimit)
            }
        } catch {
            // A child that could not start: its watching thread must not wait out the limit.
            watched.ended.signal()
            throw error
        }
        let watcher = stacks.withLock { $0 }
        watched.ended.signal()
        var stderr = String(decoding: errors, as: UTF8.self)
        if process.terminationReason == .uncaughtSignal {
            stderr += "\n[the harness: ended by signal \(process.terminationStatus); time limit \(timeLimit)]"
        }
        if let dump = await watcher?.value {
            stderr += "\n[the harness: every thread's stack \(stacksBefore) before the time limit]\n" + dump
        }
        return Result(status: process.terminationStatus, output: output, stderr: stderr)
    }

    /// A child the harness may look into before its time limit ends it.
    private struct WatchedProcess: @unchecked Sendable {
        // @unchecked: only `isRunning` and `processIdentifier` are read, which Process
        // allows from any thread; DispatchSemaphore is thread-safe.
        let process: Process
        /// Signalled once the child has ended, so the watching thread stops waiting.
        let ended = DispatchSemaphore(value: 0)

        /// Every thread's stack of a child still running after `wait` (gdb attaches for a
        /// moment), when gdb is installed; `nil` when the child ended first or there is no
        /// gdb. Why: a hang that only a loaded CI machine shows otherwise leaves nothing but
        /// "ended by signal 15" and the buffered output. The wait and the look run on a thread
        /// of their own, not in Swift's cooperative pool: a whole-suite run under Thread
        /// Sanitizer has starved that pool long enough for a look timed 2 s after the start
        /// to come after a 30 s child had ended.
        func stacksIfStillRunning(after wait: Duration) async -> String? {
            let gdb = "/usr/bin/gdb"
            guard wait > .zero, FileManager.default.isExecutableFile(atPath: gdb) else { return nil }
            let (process, ended) = (process, ended)
            let dump = try? await onNewThread(named: "DouyinTestSupport.stacks") { () -> String? in
                guard ended.wait(timeout: .now() + wait.inSeconds) == .timedOut, process.isRunning else { return nil }
                let dump = Process()
                // At most 20 s, however loaded the machine.
                dump.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
                dump.arguments = ["20", gdb, "-p", String(process.processIdentifier), "-batch", "-ex", "thread apply all bt 40"]
                let pipe = Pipe()
                dump.standardOutput = pipe
                dump.standardError = pipe
                dump.standardInput = FileHandle.nullDevice
                try dump.run()
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                dump.waitUntilExit()
                return String(decoding: output, as: UTF8.self)
            }
            return dump ?? nil
        }
    }

    /// Copies the built `douyinkit` and the resource bundles beside it (SwiftPM's
    /// `DouyinKit_<Target>.resources` on Linux, `.bundle` on Apple) into `folder`, as an app
    /// or installer would ship them, and returns the copied binary.
    public static func copyProducts(to folder: URL) throws -> URL {
        let files = FileManager.default
        for name in try files.contentsOfDirectory(atPath: productsDirectory.path)
        where name == "douyinkit" || (name.hasPrefix("DouyinKit_") && (name.hasSuffix(".resources") || name.hasSuffix(".bundle"))) {
            try files.copyItem(at: productsDirectory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder.appendingPathComponent("douyinkit")
    }
}
