import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSessionTask` made, resumed and cancelled on a serial queue of its own, never on the
/// caller's thread.
///
/// Why: FoundationNetworking makes every session's work queue target one serial queue for the
/// whole process, and making a task, `resume()` and (in older releases) `cancel()` wait
/// (`sync`) for it, behind whatever libcurl is doing for any session. A fast body in one test
/// kept that queue busy, both threads of Swift's task pool waited in `resume()` for more than
/// a minute, and with them every task of the process (a whole-suite run under Thread
/// Sanitizer; the test harness's `MachineWatch` printed the stacks).
package final class SessionTaskControl: @unchecked Sendable {
    // @unchecked Sendable: `make` is only called on `queue`; the task and the flag are behind
    // `state`'s lock, and a task is safe to resume and cancel from any thread.
    private struct State {
        var task: URLSessionTask?
        var cancelled = false
    }

    private let queue = DispatchQueue(label: "DouyinSupport.SessionTaskControl")
    private let make: @Sendable () -> URLSessionTask
    private let state = LockedBox(State())

    /// A control whose task `make` makes (on the control's queue, once started).
    package init(make: @escaping @Sendable () -> URLSessionTask) {
        self.make = make
    }

    /// Makes the task, hands it to `made` before it runs, and resumes it; nothing when
    /// ``cancel()`` came first. Returns at once.
    package func start(made: @escaping @Sendable (URLSessionTask) -> Void = { _ in }) {
        queue.async { [self] in
            guard !state.withLock({ $0.cancelled }) else { return }
            let task = make()
            state.withLock { $0.task = task }
            made(task)
            task.resume()
        }
    }

    /// Cancels the task, or the start still to come: a start not yet begun makes nothing from
    /// now on. Returns at once.
    package func cancel() {
        let first = state.withLock { state -> Bool in
            defer { state.cancelled = true }
            return !state.cancelled
        }
        guard first else { return }
        queue.async { [self] in state.withLock { $0.task }?.cancel() }
    }

    /// Returns once every start and cancel asked so far was carried out, waiting for
    /// FoundationNetworking if a start is under way (for tests; an exchange never waits for it:
    /// a start cancelled before it began makes nothing, and one already begun has passed the
    /// session's check that it is not invalidated).
    package func settled() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }
}
