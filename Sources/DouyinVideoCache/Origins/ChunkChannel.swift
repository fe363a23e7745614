import DouyinSupport
import Foundation

/// Body bytes handed from the session's callbacks to one consumer. Chunks that arrive while
/// the consumer is busy are joined, so it wakes once per batch rather than once per 16 KB
/// callback; the batch is as large as the consumer is slow (here: one disk write behind), up
/// to `limit` bytes, past which the transfer is stopped rather than buffered.
final class ChunkChannel: Sendable {
    private struct State {
        var pending = Data()
        var finished = false
        var failure: (any Error & Sendable)?
        var waiter: CheckedContinuation<Data?, any Error>?
    }

    private let state = LockedBox(State())
    private let limit: Int
    private let stopTransfer: @Sendable () -> Void

    /// A channel holding at most `limit` bytes for its consumer; `stopTransfer` is called once
    /// when a chunk would take it past that.
    init(limit: Int = .max, stopTransfer: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.stopTransfer = stopTransfer
    }

    /// Whether the body has ended (finished, failed, or stopped for the consumer).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Adds bytes; ignored once finished. A chunk that takes the buffer past the limit is still
    /// kept (so every transfer makes progress), and ends the body after it.
    func append(_ data: Data) {
        let (handOff, overran) = state.withLock { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            guard !state.finished else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            state.pending.append(data)
            guard state.pending.count > limit else { return (nil, false) }
            state.finished = true
            state.failure = OriginStoppedEarly()
            return (nil, true)
        }
        handOff?.resume(returning: data)
        if overran { stopTransfer() }
    }

    /// Ends the body, with an error if the transfer failed.
    func finish(throwing error: VideoCacheError?) {
        let handOff = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.pending.isEmpty ? state.waiter : nil
        }
        if let error { handOff?.resume(throwing: error) } else { handOff?.resume(returning: nil) }
    }

    /// The bytes received since the last call, waiting for some; `nil` at the end.
    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Data?, any Error>? in
                if !state.pending.isEmpty {
                    defer { state.pending = Data() }
                    return .success(state.pending)
                }
                if state.finished { return state.failure.map { .failure($0) } ?? .success(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
