import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CLinux
#endif

/// One thread that waits for every socket of a server at once, and resumes the task waiting on
/// a socket when it is ready or its deadline passed. A thousand idle connections cost a
/// thousand suspended tasks and descriptors, not a thousand threads, and none of them can hold
/// up another.
///
/// Sockets are non-blocking; an operation tries its system call first and waits here only on
/// `EAGAIN`. Deadlines are wall-clock (`ContinuousClock`): they bound real peers, not logic a
/// test would drive with a manual clock.
///
/// On Linux the thread waits in `epoll(7)`: the task that waits arms its socket for one event
/// (`EPOLLONESHOT`) itself, so a wait costs one `epoll_ctl` and wakes the loop's thread only
/// when its deadline is nearer than every other and than a second from now. (In `poll(2)`, which it replaced there, every
/// wait woke the thread through a pipe to rebuild the set: with the thread wakes that caused,
/// a fifth of the proxy's CPU per answer.) Elsewhere it waits in `poll(2)` that way.
///
/// The thread is also an executor: a task made with ``task(_:)`` runs its jobs there, between
/// two waits, as an event loop does. A socket's readiness then resumes its task on the thread
/// that saw it, with no hand-over to another thread (a wake and a switch per request, which
/// cost the proxy about as much CPU as everything else it does for a request). Such a task
/// must not block: every other task of the loop waits behind it.
package final class SocketLoop: Sendable {
    // Internal, not private: SocketLoop+Executor and SocketLoop+Run use what follows too.
    struct Waiter {
        let fd: Int32
        let events: Int16
        let deadline: ContinuousClock.Instant?
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct State {
        var waiters: [Int: Waiter] = [:]
        /// The waiters of each descriptor: a reader and a writer may share one.
        var waitersOn: [Int32: [Int]] = [:]
        var nextID = 0
        var stopped = false
        /// When the loop's thread wakes by itself next; `nil`: only for an event.
        var wakeAt: ContinuousClock.Instant?
        /// Jobs of tasks that prefer this loop (``task(_:)``), to run on its thread.
        var jobs: [UnownedJob] = []
        /// Whether the thread sleeps (or is about to) in `epoll_wait`/`poll`: a job enqueued
        /// then must wake it; one enqueued while it runs is seen before it sleeps again.
        var sleeping = false

        mutating func add(_ id: Int, _ waiter: Waiter) {
            waiters[id] = waiter
            waitersOn[waiter.fd, default: []].append(id)
        }

        mutating func remove(_ id: Int) -> Waiter? {
            guard let waiter = waiters.removeValue(forKey: id) else { return nil }
            waitersOn[waiter.fd]?.removeAll { $0 == id }
            if waitersOn[waiter.fd]?.isEmpty == true { waitersOn[waiter.fd] = nil }
            return waiter
        }

        /// The events some waiter of `fd` waits for; 0 for none.
        func events(on fd: Int32) -> Int16 {
            (waitersOn[fd] ?? []).reduce(0) { $0 | (waiters[$1]?.events ?? 0) }
        }

        /// The nearest deadline of all waiters (no array built: the loop asks at every turn).
        var nearestDeadline: ContinuousClock.Instant? {
            var nearest: ContinuousClock.Instant?
            for waiter in waiters.values {
                if let deadline = waiter.deadline, nearest.map({ deadline < $0 }) ?? true { nearest = deadline }
            }
            return nearest
        }

        /// Removes the waiters whose deadline is not after `now`.
        mutating func removeExpired(at now: ContinuousClock.Instant) -> [Waiter] {
            guard let nearest = nearestDeadline, nearest <= now else { return [] }
            let expired = waiters.filter { $0.value.deadline.map { $0 <= now } ?? false }.map(\.key)
            return expired.compactMap { remove($0) }
        }
    }

    let state = LockedBox(State())
    /// The loop's thread, once it runs.
    let thread = LockedBox<UInt?>(nil)
    /// A pipe whose write end wakes the thread when it must look at the waiters again.
    let wakeRead: Int32
    private let wakeWrite: Int32
    #if os(Linux)
    let epoll: Int32
    #endif

    /// The name of every loop's thread: 15 characters at most, Linux's limit.
    package static let threadName = "douyinkit-loop"

    /// Starts the loop's thread.
    package init() throws(SocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .lastError("pipe") }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        #if os(Linux)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            let error = SocketError.lastError("epoll_create1")
            close(wakeRead)
            close(wakeWrite)
            throw error
        }
        // Level-triggered, never one-shot: a wake written while the thread is busy is seen at
        // its next wait.
        var wakeEvent = epoll_event()
        wakeEvent.events = EPOLLIN.rawValue
        wakeEvent.data.fd = wakeRead
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeRead, &wakeEvent) == 0 else {
            let error = SocketError.lastError("epoll_ctl")
            close(wakeRead)
            close(wakeWrite)
            close(epoll)
            throw error
        }
        #endif
        let loopThread = Thread { [self] in
            thread.withLock { $0 = Self.currentThread }
            ThreadName.set(Self.threadName)
            run()
            // Gone: a later thread may be given the same `pthread_t`, and must not pass for it.
            thread.withLock { $0 = nil }
        }
        loopThread.start()
    }

    /// Ends the loop: every waiter resumes with ``SocketError/closed`` and the thread exits;
    /// the jobs of its tasks go on in the global concurrent executor from then on. Idempotent;
    /// the loop's thread keeps it alive until this is called.
    package func stop() {
        let waiters = state.withLock { state -> [Waiter] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.waiters = [:]; state.waitersOn = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: SocketError.closed) }
        wake()
    }

    /// Waits until `fd` is ready for `events` (`POLLIN`, `POLLOUT`), an error or hang-up shows
    /// on it, or `deadline` passes (`nil`: no deadline).
    /// - Throws: ``SocketError/timedOut``, ``SocketError/closed`` (stopped, or ``cancel(fd:)``),
    ///   `CancellationError` when the task is cancelled; on Linux ``SocketError/system(_:)``
    ///   when `fd` cannot be watched (`epoll_ctl` failed: not a socket, or closed).
    package func wait(for events: Int16, on fd: Int32, deadline: ContinuousClock.Instant?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (refusal, wakes) = state.withLock { state -> ((any Error)?, Bool) in
                    // Checked under the lock: a cancellation that ran its handler before this
                    // registration found nothing to remove, and its flag is already set.
                    if state.stopped { return (SocketError.closed, false) }
                    if Task.isCancelled { return (CancellationError(), false) }
                    state.add(id, Waiter(fd: fd, events: events, deadline: deadline, continuation: continuation))
                    #if os(Linux)
                    // Armed under the lock, so the events of two waiters of one descriptor are
                    // never armed out of order; the thread is woken only for a nearer deadline.
                    let code = arm(fd, for: state.events(on: fd))
                    if code != 0 {
                        _ = state.remove(id)
                        return (SocketError.system(SystemError(call: "epoll_ctl", code: code)), false)
                    }
                    // A thread not sleeping computes its wake time afresh before it does.
                    guard let deadline, state.sleeping else { return (nil, false) }
                    return (nil, state.wakeAt.map { deadline < $0 } ?? true)
                    #else
                    return (nil, true)
                    #endif
                }
                if let refusal { continuation.resume(throwing: refusal) } else if wakes { wake() }
            }
        } onCancel: {
            resume(where: { key, _ in key == id }, with: CancellationError())
        }
    }

    /// How many waits are registered now (for tests that must order two waits).
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Resumes every waiter on `fd` with ``SocketError/closed``: call before closing `fd`, so
    /// no task waits on a number the kernel may hand out again.
    package func cancel(fd: Int32) {
        resume(where: { _, waiter in waiter.fd == fd }, with: SocketError.closed)
    }

    private func resume(where matches: (Int, Waiter) -> Bool, with error: any Error) {
        let removed = state.withLock { state -> [Waiter] in
            let keys = state.waiters.filter { matches($0.key, $0.value) }.map(\.key)
            return keys.compactMap { state.remove($0) }
        }
        for waiter in removed { waiter.continuation.resume(throwing: error) }
        #if !os(Linux)
        // poll's set still holds the descriptor: rebuild it without.
        if !removed.isEmpty { wake() }
        #endif
        // In epoll a descriptor left armed without waiters costs nothing: its event, if any,
        // finds no one; closing it takes it out of the set.
    }

    /// Resumes every waiter with `error`: the wait itself failed, and returning from the
    /// thread would leave every waiter (the accept loop among them) asleep for good.
    func failAll(with error: SocketError) {
        let removed = state.withLock { state -> [Waiter] in
            defer { state.waiters = [:]; state.waitersOn = [:] }
            return Array(state.waiters.values)
        }
        for waiter in removed { waiter.continuation.resume(throwing: error) }
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func drainWakes() {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &drain, drain.count) > 0 {}
    }

    /// Milliseconds to wait for `deadline` (`nil`: -1, for ever), rounded up, so a deadline is
    /// never waited for as "not yet" a millisecond early.
    static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let (seconds, attoseconds) = max(.zero, deadline - .now).components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    // The thread holds the loop until `run` returns, so the pipe is closed only once no
    // `wake()` can write to it any more.
    deinit {
        close(wakeRead)
        close(wakeWrite)
        #if os(Linux)
        close(epoll)
        #endif
    }

}
