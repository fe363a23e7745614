import DouyinAPI
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// An exchange carried by a Swift task (upload progress on a caller's session) returns only
/// once that task is done with the session: the task makes its URLSession task when it first
/// runs, and a caller who invalidates its session as soon as the call failed would otherwise
/// have FoundationNetworking stop the process ("Session invalidated" is a fatal error there).
@Suite("Exchange: a failed call returns after its transfer ended")
struct ExchangeTransferTests {
    @Test func aDeadlineThatEndsTheExchangeStillWaitsForItsSwiftTask() async throws {
        let exchange = Exchange(limit: 1 << 20)
        let gate = Gate(), cancelled = Gate(), returned = Gate()
        let transferEnded = LockedBox(false)
        // Stands for the upload task still running when the deadline ends the exchange: told
        // of the cancellation, it goes on until the gate opens, as a task the pool ran late would.
        let transfer = Task {
            await withTaskCancellationHandler {
                await gate.wait()
            } onCancel: {
                cancelled.open()
            }
            transferEnded.withLock { $0 = true }
        }
        // The gate opens once the exchange cancelled the transfer (it had failed by then) and
        // then either the exchange returned (which it must not do first) or a second passed.
        // The second is a bound, not what is checked: a run slower than that passes unseen.
        let opener = Task {
            await cancelled.wait()
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { returned.open() }
            await returned.wait()
            gate.open()
        }
        // A deadline already past: the exchange fails with a timeout at once.
        await #expect(throws: ExchangeFailure.self) {
            try await exchange.run(.running(transfer), until: .now - .seconds(1))
        }
        let endedFirst = transferEnded.withLock { $0 }
        returned.open()
        await opener.value
        #expect(endedFirst, "the exchange returned while its transfer still ran")
    }
}

/// A one-shot gate: `wait()` returns once `open()` was called (before or after), and ignores
/// cancellation, as a task busy elsewhere would.
private final class Gate: Sendable {
    private let state = LockedBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state -> Bool in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }
}
