/// One piece of work whose result every caller that asks for it shares: the package's one
/// single-flight primitive (the image cache's downloads, the cover pipeline's flights, the API
/// client's visitor call).
///
/// The owner starts the work itself, elsewhere, and hands its result to ``finish(_:)``. Callers
/// ``subscribe()`` (synchronously, so an owner can look a flight up and subscribe under its own
/// lock) and then wait with ``Subscription/value()``. A waiter whose task is cancelled stops
/// waiting at once with `CancellationError`; the others keep waiting. When the last waiter
/// leaves before the result came, the flight is *abandoned*: the handler given to
/// ``onAbandoned(_:)`` runs once (to cancel the work) and later subscribers are refused, so
/// the owner starts a new flight. A flight made with `keepsRunningWithoutWaiters` is never
/// abandoned: its work goes on and it stays joinable (a memoised call).
///
/// A finished flight keeps its result: a later subscriber gets it at once.
///
/// - Important: Safe from any thread. Continuations are resumed, and the abandonment handler
///   runs, after the lock is released, so either may call back into the owner.
package final class SingleFlight<Value: Sendable>: Sendable {
    private let machine: LockedBox<SingleFlightWaiters<Value>>

    /// An unfinished flight with no waiters. `keepsRunningWithoutWaiters`: false (the default)
    /// when the work should stop once nobody waits for it; true for work whose result is kept
    /// even when every caller left.
    package init(keepsRunningWithoutWaiters: Bool = false) {
        machine = LockedBox(SingleFlightWaiters(keepsRunningWithoutWaiters: keepsRunningWithoutWaiters))
    }

    /// A waiter's place in the flight, taken by ``SingleFlight/subscribe()``; wait on it once.
    package struct Subscription: Sendable {
        let flight: SingleFlight<Value>
        let id: Int

        /// The flight's result: waits until ``SingleFlight/finish(_:)``, or returns it at once
        /// if it came. Call it once per subscription.
        ///
        /// - Throws: the flight's error, or `CancellationError` as soon as the calling task is
        ///   cancelled (the work goes on for the other waiters; the last one leaving abandons it).
        package func value() async throws -> Value {
            let machine = flight.machine
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let answer = machine.withLock { $0.join(id, continuation) }
                    if let answer { continuation.resume(with: answer) }
                }
            } onCancel: {
                let (leaving, abandon) = machine.withLock { $0.leave(id) }
                leaving?.resume(throwing: CancellationError())
                abandon?()
            }
        }
    }

    /// Takes a waiter's place: `nil` when the flight was abandoned (its work is being
    /// cancelled; start a new flight instead).
    package func subscribe() -> Subscription? {
        machine.withLock { $0.subscribe() }.map { Subscription(flight: self, id: $0) }
    }

    /// Subscribes and waits: for a flight that keeps running without waiters (never
    /// abandoned), or an owner that does not need to subscribe under its own lock.
    ///
    /// - Throws: the flight's error; `CancellationError` when the task is cancelled, or when
    ///   the flight was already abandoned.
    package func value() async throws -> Value {
        guard let subscription = subscribe() else { throw CancellationError() }
        return try await subscription.value()
    }

    /// What to do when the last waiter leaves before the result: usually cancel the work.
    /// Runs at once when the flight was already abandoned; never runs for a flight that keeps
    /// running without waiters, or once the flight finished. Only the first handler counts.
    package func onAbandoned(_ handler: @escaping @Sendable () -> Void) {
        let now = machine.withLock { $0.setAbandonHandler(handler) }
        now?()
    }

    /// Ends the flight: every waiter, and every later subscriber, gets `result`.
    ///
    /// - Returns: false when it changed nothing: a second finish, or a finish of an abandoned
    ///   flight (nobody waits; its work was being cancelled).
    @discardableResult
    package func finish(_ result: Result<Value, any Error>) -> Bool {
        guard let woken = machine.withLock({ $0.finish(result) }) else { return false }
        for continuation in woken { continuation.resume(with: result) }
        return true
    }

    /// How many callers wait now, subscribed and not yet left or answered (for tests).
    package var waiterCount: Int { machine.withLock { $0.waiterCount } }

    /// Whether the last waiter left before the result (the work was told to stop).
    package var isAbandoned: Bool { machine.withLock { $0.isAbandoned } }

    /// Whether ``finish(_:)`` came (before any abandonment): subscribers now get the result at once.
    package var isFinished: Bool { machine.withLock { $0.isFinished } }
}

/// Who waits on a ``SingleFlight`` and what they get: decides, never resumes or calls out (the
/// class does, unlocked).
struct SingleFlightWaiters<Value: Sendable> {
    /// A subscriber, until it is answered or leaves (then it has no slot).
    enum Slot {
        /// Subscribed, its continuation not arrived yet; `left` when its task was cancelled
        /// meanwhile (its continuation is resumed with `CancellationError` when it arrives).
        case subscribed(left: Bool)
        /// Waiting for the result.
        case waiting(CheckedContinuation<Value, any Error>)
    }

    enum Phase {
        case running
        case finished(Result<Value, any Error>)
        case abandoned
    }

    private let keepsRunningWithoutWaiters: Bool
    private var slots: [Int: Slot] = [:]
    private var phase = Phase.running
    private var lastID = 0
    private var abandonHandler: (@Sendable () -> Void)?

    init(keepsRunningWithoutWaiters: Bool) {
        self.keepsRunningWithoutWaiters = keepsRunningWithoutWaiters
    }

    /// Subscribers still wanting the result (a cancelled one waiting to be told is not).
    var waiterCount: Int {
        slots.values.filter { if case .subscribed(left: true) = $0 { false } else { true } }.count
    }

    var isAbandoned: Bool { if case .abandoned = phase { true } else { false } }

    var isFinished: Bool { if case .finished = phase { true } else { false } }

    /// A new subscriber's id; `nil` when abandoned.
    mutating func subscribe() -> Int? {
        if isAbandoned { return nil }
        lastID += 1
        slots[lastID] = .subscribed(left: false)
        return lastID
    }

    /// A subscriber's continuation arrives: the answer to resume it with now, or `nil` to wait.
    /// A cancellation that came first wins over a result.
    mutating func join(_ id: Int, _ continuation: CheckedContinuation<Value, any Error>) -> Result<Value, any Error>? {
        guard case .subscribed(let left)? = slots.removeValue(forKey: id) else {
            preconditionFailure("invalid state: subscriber \(id) waited twice")
        }
        if left { return .failure(CancellationError()) }
        switch phase {
        case .finished(let result): return result
        // Not reachable: the flight is abandoned only when no subscriber wants it, and this one
        // had not left. Kept total rather than trapping.
        case .abandoned: return .failure(CancellationError())
        case .running:
            slots[id] = .waiting(continuation)
            return nil
        }
    }

    /// A subscriber's task was cancelled: its continuation to resume with `CancellationError`
    /// now (nil when it has not arrived yet, or the subscriber was already answered), and the
    /// abandonment handler to run when it was the last one wanting a running flight.
    mutating func leave(_ id: Int) -> (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?) {
        var leaving: CheckedContinuation<Value, any Error>?
        switch slots[id] {
        case .waiting(let continuation)?:
            slots[id] = nil
            leaving = continuation
        case .subscribed?:
            slots[id] = .subscribed(left: true)
        case nil:
            return (nil, nil)
        }
        guard case .running = phase, !keepsRunningWithoutWaiters, waiterCount == 0 else { return (leaving, nil) }
        phase = .abandoned
        defer { abandonHandler = nil }
        return (leaving, abandonHandler)
    }

    /// Keeps `handler` for an abandonment to come, or returns it to run now when the flight is
    /// already abandoned.
    mutating func setAbandonHandler(_ handler: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        switch phase {
        case .abandoned: return handler
        case .finished: return nil
        case .running:
            if abandonHandler == nil, !keepsRunningWithoutWaiters { abandonHandler = handler }
            return nil
        }
    }

    /// The work ended: the waiting subscribers to resume with `result`, or `nil` when it counts
    /// for nothing (already finished or abandoned). Subscribers whose continuation has not
    /// arrived get the result when it does.
    mutating func finish(_ result: Result<Value, any Error>) -> [CheckedContinuation<Value, any Error>]? {
        guard case .running = phase else { return nil }
        phase = .finished(result)
        abandonHandler = nil
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
