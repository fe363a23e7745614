import DouyinSupport

/// One call whose answer every caller that asks for it shares: callers wait for it without
/// owning it, so a caller's cancellation ends only that caller's wait.
///
/// The work runs elsewhere (``APIClient/visitor(deviceID:)`` starts it in its own task) and
/// hands its result to ``finish(_:)``; ``value()`` waits for that result, or throws
/// `CancellationError` as soon as the waiting task is cancelled. A finished call keeps its
/// result: later callers get it at once.
///
/// - Important: Safe from any thread; continuations are resumed after the lock is released.
package final class SharedCall<Value: Sendable>: Sendable {
    private let waiters = LockedBox(Waiters())

    /// An unfinished call with no waiters.
    package init() {}

    /// The call's result: waits until ``finish(_:)``, or returns it at once if it came.
    ///
    /// - Throws: the call's error, or `CancellationError` when the calling task is cancelled
    ///   first (the call itself goes on for the other waiters).
    package func value() async throws -> Value {
        let id = waiters.withLock { $0.newID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let answer = waiters.withLock { $0.join(id, continuation) }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let leaving = waiters.withLock { $0.cancel(id) }
            leaving?.resume(throwing: CancellationError())
        }
    }

    /// Ends the call: every waiter, and every later caller, gets `result`. Only the first call
    /// counts.
    package func finish(_ result: Result<Value, any Error>) {
        let woken = waiters.withLock { $0.finish(result) }
        for continuation in woken { continuation.resume(with: result) }
    }

    /// How many callers wait now (for tests).
    package var waiterCount: Int { waiters.withLock { $0.waitingCount } }

    /// Who waits and what they get; decides, never resumes (the class does, unlocked).
    struct Waiters {
        /// A caller from ``SharedCall/value()`` until it is resumed (then it has no slot).
        enum Slot {
            /// Its id is taken but its continuation has not arrived; `cancelled` when its task
            /// was cancelled meanwhile (the continuation is then resumed as soon as it arrives).
            case unjoined(cancelled: Bool)
            /// Waiting for the result.
            case waiting(CheckedContinuation<Value, any Error>)
        }

        private var slots: [Int: Slot] = [:]
        private var result: Result<Value, any Error>?
        private var lastID = 0

        var waitingCount: Int {
            slots.values.filter { if case .waiting = $0 { true } else { false } }.count
        }

        /// A new caller's id.
        mutating func newID() -> Int {
            lastID += 1
            slots[lastID] = .unjoined(cancelled: false)
            return lastID
        }

        /// A caller's continuation arrives: the answer to resume it with now, or `nil` to wait.
        /// A cancellation that came first wins over a result.
        mutating func join(_ id: Int, _ continuation: CheckedContinuation<Value, any Error>) -> Result<Value, any Error>? {
            guard case .unjoined(let cancelled)? = slots.removeValue(forKey: id) else {
                preconditionFailure("invalid state: caller \(id) joined twice")
            }
            if cancelled { return .failure(CancellationError()) }
            if let result { return result }
            slots[id] = .waiting(continuation)
            return nil
        }

        /// A caller's task was cancelled: its continuation to resume with `CancellationError`
        /// now, or `nil` when it has not joined yet (it is told when it does) or was already
        /// resumed (nothing to do).
        mutating func cancel(_ id: Int) -> CheckedContinuation<Value, any Error>? {
            switch slots[id] {
            case .waiting(let continuation)?:
                slots[id] = nil
                return continuation
            case .unjoined?:
                slots[id] = .unjoined(cancelled: true)
                return nil
            case nil:
                return nil
            }
        }

        /// The call ended: the waiting callers to resume with `result` (none on a second
        /// finish); callers still joining get it when they join.
        mutating func finish(_ result: Result<Value, any Error>) -> [CheckedContinuation<Value, any Error>] {
            guard self.result == nil else { return [] }
            self.result = result
            var woken: [CheckedContinuation<Value, any Error>] = []
            for (id, slot) in slots {
                if case .waiting(let continuation) = slot {
                    woken.append(continuation)
                    slots[id] = nil
                }
            }
            return woken
        }
    }
}
