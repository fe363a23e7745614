/// The callers of a component's `idle()`: they wait until the component has no work left, and
/// each may leave early (its task cancelled) without disturbing the others.
///
/// Kept inside the component's own locked state. A caller that finds the component busy takes
/// a ``subscribe()`` under that lock and waits on it after unlocking; the component calls
/// ``release()`` under its lock when it becomes idle and finishes what it returns after
/// unlocking. The waiting, and leaving early, are ``SingleFlight``'s: one idle period is one
/// flight that every caller shares.
package struct IdleWaiters: Sendable {
    /// The flight the callers of this busy period wait on; made by the first caller.
    private var current: SingleFlight<Void>?

    /// No caller waits.
    package init() {}

    /// A caller's place until the next ``release()``.
    package mutating func subscribe() -> SingleFlight<Void>.Subscription {
        let flight = current ?? SingleFlight<Void>(keepsRunningWithoutWaiters: true)
        current = flight
        // A flight that keeps running without waiters is never abandoned, so it never refuses.
        guard let subscription = flight.subscribe() else { preconditionFailure("an idle flight refused a waiter") }
        return subscription
    }

    /// The component became idle: the flight to finish (after unlocking) to wake every caller,
    /// or `nil` when nobody waited. Callers after this wait for the next idle moment.
    package mutating func release() -> SingleFlight<Void>? {
        defer { current = nil }
        return current
    }
}

extension SingleFlight<Void>.Subscription {
    /// Waits for the idle moment; returns early, without an error, when the task is cancelled
    /// (an `idle()` that is cancelled simply stops waiting).
    package func waitForIdle() async {
        try? await value()
    }
}
