import Foundation

/// The executing / finished flags of an asynchronous `Operation`, with the KVO notifications an
/// `OperationQueue` relies on.
///
/// An operation that owns one overrides `isAsynchronous` (true), `isExecuting` and `isFinished`
/// (forwarding here) and calls ``start(_:)`` from its `start()` and ``finish(_:)`` when its work
/// ends. The flags change under a lock; the KVO notifications are sent outside it, so an
/// observer may call back into the operation (or whatever owns it) without deadlocking.
///
/// A finish that arrives before the queue started the operation (work cancelled or ended while
/// it still waited) is remembered, because Foundation does not allow an operation to finish
/// before it starts; ``start(_:)`` then finishes it at once.
package final class AsyncOperationState: Sendable {
    private struct Flags {
        var executing = false
        var finished = false
        var finishRequested = false
    }

    private let flags = LockedBox(Flags())

    /// Makes the flags of an operation that has not started.
    package init() {}

    /// Whether the operation runs: started and not yet finished.
    package var isExecuting: Bool { flags.withLock { $0.executing } }

    /// Whether the operation has finished (it never becomes false again).
    package var isFinished: Bool { flags.withLock { $0.finished } }

    /// Marks `operation` executing and returns true; or, when ``finish(_:)`` already came,
    /// marks it finished and returns false (the caller then skips its work). A second start of
    /// an operation already executing or finished returns false and changes nothing: it must
    /// not end work that is still running.
    @discardableResult
    package func start(_ operation: Operation) -> Bool {
        enum Outcome { case begin, finishPending, ignore }
        let outcome = flags.withLock { flags -> Outcome in
            if flags.executing || flags.finished { return .ignore }
            if flags.finishRequested { return .finishPending }
            flags.executing = true
            return .begin
        }
        switch outcome {
        case .begin:
            // The flag is already true when observers hear of it: KVO readers see the new value.
            operation.willChangeValue(forKey: "isExecuting")
            operation.didChangeValue(forKey: "isExecuting")
            return true
        case .finishPending:
            finishNow(operation)
            return false
        case .ignore:
            return false
        }
    }

    /// Finishes `operation` once: later calls do nothing. Before the operation started, only
    /// notes it; ``start(_:)`` then finishes it.
    package func finish(_ operation: Operation) {
        let started = flags.withLock { flags -> Bool in
            if !flags.executing && !flags.finished { flags.finishRequested = true }
            return flags.executing
        }
        if started { finishNow(operation) }
    }

    private func finishNow(_ operation: Operation) {
        let wasExecuting = flags.withLock { flags -> Bool? in
            guard !flags.finished else { return nil }
            let was = flags.executing
            flags.executing = false
            flags.finished = true
            return was
        }
        guard let wasExecuting else { return }
        operation.willChangeValue(forKey: "isFinished")
        if wasExecuting { operation.willChangeValue(forKey: "isExecuting") }
        if wasExecuting { operation.didChangeValue(forKey: "isExecuting") }
        operation.didChangeValue(forKey: "isFinished")
    }
}
