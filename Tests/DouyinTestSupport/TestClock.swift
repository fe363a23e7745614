import DouyinSupport
import Foundation

/// A `Clock` whose time moves only when the test calls ``advance(by:)``: code under test that
/// sleeps on it wakes exactly when the test says, so no test waits on wall time.
///
/// ``waitForSleepers(_:)`` returns once that many sleeps are pending, so a test can advance
/// the clock knowing the code under test has started waiting (no sleeps, no polling).
public final class TestClock: Clock, Sendable {
    /// A point on the test clock: the time advanced since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock started.
        public var offset: Duration

        /// A point `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// This point moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this point to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<Int> = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var totalSleeps = 0
    }

    private let state = LockedBox(State())

    /// A clock at offset zero with nobody sleeping.
    public init() {}

    /// The clock's current time.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock moves in whatever steps the test chooses.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are pending now.
    public var pendingSleeps: Int { state.withLock { $0.sleepers.count } }

    /// How many sleeps have started since the clock was made (finished ones included).
    public var totalSleeps: Int { state.withLock { $0.totalSleeps } }

    /// Suspends until the test advances the clock to `deadline`; throws `CancellationError`
    /// when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancel }
                let (outcome, waiters) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    state.totalSleeps += 1
                    if state.cancelledBeforeSleeping.remove(id) != nil { return (.cancel, []) }
                    if deadline <= state.now { return (.wake, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (.wait, Self.takeSatisfiedWaiters(&state))
                }
                waiters.forEach { $0.resume() }
                switch outcome {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledBeforeSleeping.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleep whose deadline has come,
    /// earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        due.forEach { $0.continuation.resume() }
    }

    /// Returns once at least `count` sleeps are pending.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let pending = state.sleepers.count
        let ready = state.sleeperWaiters.filter { $0.count <= pending }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.count <= pending }
        return ready
    }
}
