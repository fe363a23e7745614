import DouyinSupport

/// A count of things that happened (requests that arrived, clients that left), which a test
/// awaits instead of sleeping: ``reached(_:)`` returns once the count is there.
///
/// Waiters are resumed outside the lock, and a waiter whose task is cancelled (a test's time
/// limit) is resumed at once, so a hang ends as a failed test, not a stuck run.
public final class EventCount: Sendable {
    private struct State {
        var count = 0
        var waiters: [(id: UInt64, target: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedBox(State())

    /// A count at zero.
    public init() {}

    /// How many so far.
    public var count: Int { state.withLock { $0.count } }

    /// Counts one more, waking the waiters whose target it reaches.
    public func increment() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.target <= count }.map(\.continuation)
            state.waiters.removeAll { $0.target <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the count is at least `target`, or at once when the calling task is
    /// cancelled; returns whether the count was reached.
    @discardableResult
    public func reached(_ target: Int) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.count >= target || Task.isCancelled { return true }
                    state.waiters.append((id, target, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
        return count >= target
    }
}
