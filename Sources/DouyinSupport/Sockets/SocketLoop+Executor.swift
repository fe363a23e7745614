import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loop's thread as an executor: tasks made with ``SocketLoop/task(_:)`` run their jobs
/// there, between two waits; once the loop stopped, in the global concurrent executor.
extension SocketLoop {
    /// Runs `operation` as a new task whose jobs run on the loop's thread (where task executor
    /// preferences exist: Linux, and Apple systems of 2024 on; elsewhere a plain task).
    /// Unstructured tasks it makes (`Task {}`) run in the global concurrent executor as usual.
    @discardableResult
    package func task<Success: Sendable>(_ operation: sending @escaping () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return Task(executorPreference: self, operation: operation)
        }
        return Task(operation: operation)
    }

    /// Whether the caller runs on the loop's thread (a job of a ``task(_:)``, or the loop's
    /// own work).
    package var isCurrent: Bool {
        thread.withLock { $0 } == Self.currentThread
    }

    /// The calling thread's `pthread_t` as a number (a pointer on Apple systems).
    static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Takes a job of a task that prefers this loop.
    func take(_ job: UnownedJob) {
        let (accepted, wakes) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopped else { return (false, false) }
            state.jobs.append(job)
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if !accepted {
            forward([job])
        } else if wakes {
            wake()
        }
    }

    /// Hands `jobs` to the global concurrent executor: the loop stopped.
    private func forward(_ jobs: [UnownedJob]) {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Runs the jobs queued when called (those they enqueue wait for the next turn, so a busy
    /// task cannot keep the sockets unwatched). On stop, forwards what is left and returns
    /// `false`: the thread is to exit.
    func runJobs() -> Bool {
        let (jobs, stopped) = state.withLock { state in
            defer { state.jobs = [] }
            return (state.jobs, state.stopped)
        }
        if stopped {
            forward(jobs)
            return false
        }
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return true }
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        return true
    }

    /// Before a wait: the wake time, and whether to wait at all (not with jobs queued).
    func prepareToSleep(nearest: (inout State) -> ContinuousClock.Instant?) -> (stopped: Bool, timeout: Int32) {
        state.withLock { state in
            state.wakeAt = nearest(&state)
            state.sleeping = state.jobs.isEmpty
            return (state.stopped, state.jobs.isEmpty ? Self.milliseconds(until: state.wakeAt) : 0)
        }
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
extension SocketLoop: TaskExecutor {
    /// Queues `job` to run on the loop's thread (``task(_:)``); once stopped, in the global
    /// concurrent executor.
    package func enqueue(_ job: consuming ExecutorJob) {
        take(UnownedJob(job))
    }
}
