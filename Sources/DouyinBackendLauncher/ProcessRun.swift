import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

extension Process {
    /// Starts the process and waits for its exit without blocking a thread: a harness blocked
    /// in `waitUntilExit()` holds one of the few threads every async task shares (two on a
    /// two-core machine), and a server in the same process then stops answering.
    ///
    /// - Parameter timeLimit: how long the process may run before it is sent SIGTERM (and
    ///   SIGKILL 10 s later); `nil` (the default) lets it run as long as it takes. A hang guard
    ///   for harnesses: a child that never ends must fail its test, not hold the whole run.
    /// - Throws: the error of `run()` when the process cannot start; an exit status is not an
    ///   error (read `terminationStatus`, and `terminationReason` for a process ended by signal).
    public func runToExit(timeLimit: Duration? = nil) async throws {
        let target = ProcessBox(process: self)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            terminationHandler = { process in
                process.letGoAfterEnd()
                continuation.resume()
            }
            // Spawned on a thread of its own, which resumes the caller only if the spawn failed:
            // no thread async code shares waits for a spawn.
            Self.onUnblockedThread {
                do {
                    try target.process.runAlone()
                } catch {
                    target.process.terminationHandler = nil
                    continuation.resume(throwing: error)
                    return
                }
                if let timeLimit { target.process.endAfter(timeLimit) }
            }
        }
    }

    /// `run()` from a new thread whose signal mask is empty, so the child starts with none
    /// blocked; returns once it started (or throws why not). For callers already on a thread
    /// of their own: async code uses ``start()`` or ``runToExit(timeLimit:)``, which block no
    /// thread it shares.
    ///
    /// Why: swift-corelibs-foundation spawns with the calling thread's signal mask, and the
    /// threads async code runs on (dispatch's workers) block nearly every signal: a child
    /// started from one ignored SIGTERM (`terminate()`) for as long as it ran, seen as a hung
    /// child that only SIGKILL ended.
    /// - Returns: the process's end, to wait for instead of `waitUntilExit()` (it sets the
    ///   process's termination handler).
    @available(*, noasync, message: "blocks the calling thread during the spawn: use `await start()`")
    @discardableResult
    package func runWithSignalsUnblocked() throws -> ProcessEnd {
        let end = ProcessEnd(watching: self)
        let outcome = LockedBox<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let target = ProcessBox(process: self)
        Self.onUnblockedThread {
            outcome.withLock { $0 = Result { try target.process.runAlone(watchedBy: end) } }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }?.get()
        return end
    }

    /// ``runWithSignalsUnblocked()`` for async code: the spawn is made on a thread of its own
    /// and the caller resumes once the process runs (or with why it could not start).
    /// - Returns: the process's end, to await instead of `waitUntilExit()` (it sets the
    ///   process's termination handler).
    @discardableResult
    package func start() async throws -> ProcessEnd {
        let end = ProcessEnd(watching: self)
        let target = ProcessBox(process: self)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.onUnblockedThread { continuation.resume(with: Result { try target.process.runAlone(watchedBy: end) }) }
        }
        return end
    }

    /// `run()` while no other spawn of this module runs.
    ///
    /// Why: swift-corelibs-foundation learns that a child ended when the child's end of a
    /// socket pair closes; that end is open in this process from the moment `run()` makes it
    /// until the spawn is done, and without close-on-exec. A second `run()` on another thread
    /// meanwhile passed it to its own child, which kept it open for its whole life: the first
    /// child's exit was never seen, and `waitUntilExit()` or the termination handler waited for
    /// ever (seen: a whole-suite run stood still with two backends left as zombies, their socket
    /// ends held by nginx and Python servers started at the same moment).
    private func runAlone() throws {
        try Self.spawnLock.withLock { try run() }
    }

    /// ``runAlone()`` for a process `end` watches: a spawn that fails lets `end` go (it never
    /// ends otherwise, and a dispatch group freed while entered stops the process).
    private func runAlone(watchedBy end: ProcessEnd) throws {
        do {
            try runAlone()
        } catch {
            end.abandon(self)
            throw error
        }
    }

    /// Held around every spawn of this module (``runAlone()``).
    private static let spawnLock = NSLock()

    /// Lets corelibs free this process once it ended; for termination handlers.
    ///
    /// Why: corelibs' `run()` makes a run loop source that retains the process, and only
    /// `waitUntilExit()` lets it go. A process whose end was awaited any other way was never
    /// freed, nor the pipes it holds: a whole-suite run held 514 descriptors of pipes whose
    /// other end was long closed, 1,322 descriptors in all. Once the process ended,
    /// `waitUntilExit()` returns at once.
    fileprivate func letGoAfterEnd() {
        waitUntilExit()
    }

    /// Runs `body` on a new thread whose signal mask is empty.
    private static func onUnblockedThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            var none = sigset_t()  // all bits clear: the empty set, on Linux and Darwin alike
            pthread_sigmask(SIG_SETMASK, &none, nil)
            body()
        }
        thread.name = "DouyinBackendLauncher.spawn"
        thread.start()
    }

    /// Sends SIGTERM once `limit` passed, then SIGKILL 10 s later, to a process still running.
    private func endAfter(_ limit: Duration) {
        let target = ProcessBox(process: self)
        DispatchQueue.global().asyncAfter(deadline: .now() + limit.inSeconds) {
            guard target.process.isRunning else { return }
            target.process.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
                if target.process.isRunning { kill(target.process.processIdentifier, SIGKILL) }
            }
        }
    }

    /// ``runToExit(timeLimit:)`` with stdout and stderr written to files in a scratch folder
    /// (removed after) and returned: files, not pipes, because a child that fills a pipe nobody
    /// reads yet blocks for ever.
    /// - Parameter timeLimit: as for ``runToExit(timeLimit:)``; `nil` (the default): none.
    public func runCapturingOutput(timeLimit: Duration? = nil) async throws -> (stdout: Data, stderr: Data) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        standardOutput = out
        standardError = err
        try await runToExit(timeLimit: timeLimit)
        try out.close()
        try err.close()
        return (try Data(contentsOf: outURL), try Data(contentsOf: errURL))
    }
}

/// The end of a process started with ``Foundation/Process/start()`` or
/// ``Foundation/Process/runWithSignalsUnblocked()``, waited for through the process's
/// termination handler: corelibs' `waitUntilExit()` spins the calling thread's run loop until
/// the end is seen (a busy loop on a thread whose run loop holds nothing; the crash under
/// Thread Sanitizer seen last in that run loop's teardown came from a wait on a thread that
/// ended while corelibs still pointed at its run loop). Termination handlers still call it
/// once, after the end, when it returns at once (`letGoAfterEnd()`).
package final class ProcessEnd: Sendable {
    private let ended = DispatchGroup()

    /// Watches `process` through its termination handler; made before the process starts.
    fileprivate init(watching process: Process) {
        ended.enter()
        process.terminationHandler = { [ended] process in
            process.letGoAfterEnd()
            ended.leave()
        }
    }

    /// Blocks the calling thread until the process ended: for a thread of its own, or right
    /// after SIGKILL.
    @available(*, noasync, message: "blocks a thread async tasks share: use `await wait()`")
    package func waitHere() {
        ended.wait()
    }

    /// Stops watching `process`, whose spawn failed: its termination handler will never run.
    fileprivate func abandon(_ process: Process) {
        process.terminationHandler = nil
        ended.leave()
    }

    /// Runs `body` once the process ended (on a global queue).
    package func onEnd(_ body: @escaping @Sendable () -> Void) {
        ended.notify(queue: .global(), execute: body)
    }

    /// Returns once the process ended (its `terminationStatus` can be read then).
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            ended.notify(queue: .global()) { continuation.resume() }
        }
    }
}

/// A long-running child a harness value owns until ``stop()``: a server that must not outlive
/// it, nor the process: one never stopped (a server shared by a whole test run, held in a
/// `static`) is sent SIGKILL when the process exits normally (``LiveChildren``).
package final class OwnedChild: Sendable {
    private let running: LockedBox<(process: Process, end: ProcessEnd)?>

    /// Owns `process`, started with `end` as its end.
    package init(_ process: Process, end: ProcessEnd) {
        running = LockedBox((process, end))
        let id = process.processIdentifier
        LiveChildren.add(id)
        // Off the books once it ended, stopped or not: its id may go to another process.
        end.onEnd { LiveChildren.remove(id) }
    }

    /// The child's process id until ``stop()``.
    package var processIdentifier: Int32? {
        running.withLock { $0?.process.processIdentifier }
    }

    /// Ends the child with SIGKILL if it still runs and waits for its end (milliseconds, on
    /// the calling thread); idempotent.
    package func stop() {
        guard let (process, end) = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        end.waitHere()
    }
}

/// The process ids of the ``OwnedChild``ren still running, each sent SIGKILL at the process's
/// normal exit (`atexit`): a `swift test` run left three nginx servers behind every time.
/// Not at a crash or a SIGKILL of this process; nothing in-process can do that. Counted, not a
/// set: a child's end is noted asynchronously, after its id may already be another's.
enum LiveChildren {
    private static let ids: LockedBox<[Int32: Int]> = {
        atexit {
            // At exit another thread may still hold the lock: then skip rather than hang.
            guard let ids = LiveChildren.ids.withLockIfAvailable({ $0 }) else { return }
            // Only a child of this process still running: `waitpid` answers 0 for it without
            // reaping. One that ended and was reaped may have lent its id to a stranger.
            var status: Int32 = 0
            for id in ids.keys where id > 0 && waitpid(id, &status, WNOHANG) == 0 { kill(id, SIGKILL) }
        }
        return LockedBox([:])
    }()

    static func add(_ id: Int32) {
        ids.withLock { $0[id, default: 0] += 1 }
    }

    static func remove(_ id: Int32) {
        ids.withLock { ids in
            guard let count = ids[id] else { return }
            ids[id] = count > 1 ? count - 1 : nil
        }
    }
}

/// A process handed to the timer that ends it.
private struct ProcessBox: @unchecked Sendable {
    // @unchecked: Process is thread-safe for isRunning, terminate() and processIdentifier.
    let process: Process
}
