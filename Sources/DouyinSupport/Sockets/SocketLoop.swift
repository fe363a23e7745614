import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that waits in `poll(2)` for every socket of a server at once, and resumes the
/// task waiting on a socket when it is ready or its deadline passed. A thousand idle
/// connections cost a thousand suspended tasks and descriptors, not a thousand threads, and
/// none of them can hold up another.
///
/// Sockets are non-blocking; an operation tries its system call first and waits here only on
/// `EAGAIN`. Deadlines are wall-clock (`ContinuousClock`): they bound real peers, not logic a
/// test would drive with a manual clock.
package final class SocketLoop: Sendable {
    private struct Waiter {
        let fd: Int32
        let events: Int16
        let deadline: ContinuousClock.Instant?
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        var stopped = false
    }

    private let state = LockedBox(State())
    /// A pipe whose write end wakes `poll` when the set of waiters changed.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts the loop's thread.
    package init() throws(SocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .lastError("pipe") }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        let thread = Thread { [self] in run() }
        thread.name = "douyinkit.socket-loop"
        thread.start()
    }

    /// Ends the loop: every waiter resumes with ``SocketError/closed`` and the thread exits.
    /// Idempotent; the loop's thread keeps it alive until this is called.
    package func stop() {
        let waiters = state.withLock { state -> [Waiter] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: SocketError.closed) }
        wake()
    }

    /// Waits until `fd` is ready for `events` (`POLLIN`, `POLLOUT`), an error or hang-up shows
    /// on it, or `deadline` passes (`nil`: no deadline).
    /// - Throws: ``SocketError/timedOut``, ``SocketError/closed`` (stopped, or ``cancel(fd:)``),
    ///   `CancellationError` when the task is cancelled.
    package func wait(for events: Int16, on fd: Int32, deadline: ContinuousClock.Instant?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refusal: (any Error)? = state.withLock { state in
                    // Checked under the lock: a cancellation that ran its handler before this
                    // registration found nothing to remove, and its flag is already set.
                    if state.stopped { return SocketError.closed }
                    if Task.isCancelled { return CancellationError() }
                    state.waiters[id] = Waiter(fd: fd, events: events, deadline: deadline, continuation: continuation)
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) } else { wake() }
            }
        } onCancel: {
            resume(where: { key, _ in key == id }, with: CancellationError())
        }
    }

    /// Resumes every waiter on `fd` with ``SocketError/closed``: call before closing `fd`, so
    /// no task waits on a number the kernel may hand out again.
    package func cancel(fd: Int32) {
        resume(where: { _, waiter in waiter.fd == fd }, with: SocketError.closed)
    }

    private func resume(where matches: (Int, Waiter) -> Bool, with error: any Error) {
        let removed = state.withLock { state -> [Waiter] in
            let keys = state.waiters.filter { matches($0.key, $0.value) }.map(\.key)
            return keys.compactMap { state.waiters.removeValue(forKey: $0) }
        }
        for waiter in removed { waiter.continuation.resume(throwing: error) }
        if !removed.isEmpty { wake() }
    }

    /// Resumes the waiters `ids` that are still waiting with `error`.
    private func failAll(_ ids: [Int], with error: SocketError) {
        let removed = state.withLock { state in ids.compactMap { state.waiters.removeValue(forKey: $0) } }
        for waiter in removed { waiter.continuation.resume(throwing: error) }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // The thread holds the loop until `run` returns, so the pipe is closed only once no
    // `wake()` can write to it any more.
    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private func run() {
        var drain = [UInt8](repeating: 0, count: 256)
        while true {
            let (snapshot, stopped) = state.withLock { state in (state.waiters.map { ($0.key, $0.value.fd, $0.value.events, $0.value.deadline) }, state.stopped) }
            if stopped { return }
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            descriptors += snapshot.map { pollfd(fd: $0.1, events: $0.2, revents: 0) }
            let now = ContinuousClock.now
            let nearest = snapshot.compactMap(\.3).min()
            var timeout: Int32 = -1
            if let nearest {
                let (seconds, attoseconds) = max(.zero, nearest - now).components
                // Rounded up, so a deadline is never polled for as "not yet" a millisecond early.
                timeout = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0, errno != EINTR {
                // Returning here would leave every waiter (the accept loop among them) asleep
                // for good, their clients unanswered. The waiters polled fail instead; the
                // loop goes on for the next ones.
                failAll(snapshot.map(\.0), with: .lastError("poll"))
                continue
            }
            while read(wakeRead, &drain, drain.count) > 0 {}
            let after = ContinuousClock.now
            var due: [(Int, (any Error)?)] = []
            for (index, entry) in snapshot.enumerated() {
                if descriptors[index + 1].revents != 0 {
                    due.append((entry.0, nil))
                } else if let deadline = entry.3, deadline <= after {
                    due.append((entry.0, SocketError.timedOut))
                }
            }
            guard !due.isEmpty else { continue }
            let resumed = state.withLock { state in
                due.compactMap { id, error in state.waiters.removeValue(forKey: id).map { ($0, error) } }
            }
            for (waiter, error) in resumed {
                if let error { waiter.continuation.resume(throwing: error) } else { waiter.continuation.resume() }
            }
        }
    }
}
