import Foundation

/// Body bytes handed from a transport's thread to one reader, with back-pressure.
///
/// The transport offers each network read; while the reader has ``HTTPRequest/bufferLimit``
/// bytes waiting, an offer is refused (`.full`) and the transport pauses the transfer, keeping
/// the bytes; the reader's next take asks it to resume (`resume`, called once per pause).
/// Reads that arrive while the reader is busy are joined, so it wakes once per batch. A
/// transport that reads in rounds (libcurl's: every read a socket has ready, then a poll) may
/// offer without waking (`wakingReader: false`) and call ``wake()`` once the round is done: a
/// reader that keeps up then wakes once a round, not once a read (a context switch each: a cold
/// 32 MB read through the video cache made a third to a quarter as many).
///
/// - Important: `resume` and `cancelTransfer` are called after the lock is released, on the
///   reader's thread, the transport's (a ``wake()`` that empties a paused buffer) or whichever
///   thread cancels: they must only queue work, never block.
package final class HTTPBodyBuffer: Sendable {
    /// What became of an offer.
    package enum Offer: Equatable {
        /// The bytes were taken.
        case taken
        /// The reader is behind: the bytes were not taken; pause, and offer them again after `resume`.
        case full
        /// The body has ended (cancelled or failed): stop the transfer.
        case closed
    }

    private struct State {
        var pending = Data()
        var arrival = ContinuousClock.now
        var paused = false
        var finished = false
        var failure: (any Error)?
        /// Whether the reader has been handed the end (`nil` or the failure).
        var endRead = false
        var waiter: CheckedContinuation<HTTPBodyChunk?, any Error>?

        /// Joins `data` to the bytes held; into an empty buffer without a copy (the usual case
        /// for a reader that keeps up).
        mutating func hold(_ data: Data) {
            if pending.isEmpty { pending = data } else { pending.append(data) }
        }

        /// Joins a transport's read to the bytes held, copying it once: into new storage, or
        /// straight onto the end of what is held (not through a `Data` of its own first).
        mutating func hold(_ bytes: UnsafeRawBufferPointer) {
            if pending.isEmpty { pending = Data(bytes) } else { pending.append(bytes.assumingMemoryBound(to: UInt8.self)) }
        }

        /// What the reader gets now — the bytes held, else the end once the body has ended —
        /// and whether taking them emptied a paused buffer (the transport is to resume); `nil`
        /// while there is neither.
        mutating func takeReady() -> (Result<HTTPBodyChunk?, any Error>, resumeTransfer: Bool)? {
            if !pending.isEmpty {
                let chunk = HTTPBodyChunk(data: pending, arrival: arrival)
                pending = Data()
                defer { paused = false }
                return (.success(chunk), paused && !finished)
            }
            guard finished else { return nil }
            endRead = true
            return (failure.map { .failure($0) } ?? .success(nil), false)
        }
    }

    private let state = LockedBox(State())
    private let limit: Int
    private let resume: @Sendable () -> Void
    private let cancelTransfer: @Sendable () -> Void

    /// A buffer pausing past `limit` bytes (at least 1); `resume` asks the transport to go on
    /// after a pause, `cancelTransfer` to end the transfer when the reader cancels.
    package init(limit: Int, resume: @escaping @Sendable () -> Void, cancelTransfer: @escaping @Sendable () -> Void) {
        self.limit = max(1, limit)
        self.resume = resume
        self.cancelTransfer = cancelTransfer
    }

    /// Offers bytes that arrived at `arrival`, valid only during the call (a transport's own
    /// buffer): they are copied once, into the chunk a waiting reader gets or onto the end of
    /// the bytes held. A reader holding nothing always takes them, so every offer makes
    /// progress whatever its size. With `wakingReader` false a waiting reader is not woken:
    /// the bytes are held for it until ``wake()`` (which the transport must then call).
    package func offer(_ bytes: UnsafeRawBufferPointer, at arrival: ContinuousClock.Instant = .now, wakingReader: Bool = true) -> Offer {
        typealias Joined = (Result<HTTPBodyChunk?, any Error>, resumeTransfer: Bool)
        let (result, waiter, joined) = state.withLock { state -> (Offer, CheckedContinuation<HTTPBodyChunk?, any Error>?, Joined?) in
            if state.finished { return (.closed, nil, nil) }
            if wakingReader, let waiter = state.waiter {
                state.waiter = nil
                guard !state.pending.isEmpty else { return (.taken, waiter, nil) }
                // Bytes offered quietly wait for this reader: these go after them, in one chunk.
                state.hold(bytes)
                state.arrival = arrival
                return (.taken, waiter, state.takeReady())
            }
            if state.pending.count >= limit {
                state.paused = true
                return (.full, nil, nil)
            }
            state.hold(bytes)
            state.arrival = arrival
            return (.taken, nil, nil)
        }
        if let joined {
            if joined.resumeTransfer { resume() }
            waiter?.resume(with: joined.0)
        } else {
            waiter?.resume(returning: HTTPBodyChunk(data: Data(bytes), arrival: arrival))
        }
        return result
    }

    /// Hands a waiting reader the bytes held since it began to wait (offered without waking
    /// it), or the end when the body ended meanwhile; nothing when it is not waiting.
    package func wake() {
        let handed = state.withLock { state -> (CheckedContinuation<HTTPBodyChunk?, any Error>, Result<HTTPBodyChunk?, any Error>, Bool)? in
            guard let waiter = state.waiter, let (ready, resumeTransfer) = state.takeReady() else { return nil }
            state.waiter = nil
            return (waiter, ready, resumeTransfer)
        }
        guard let (waiter, ready, resumeTransfer) = handed else { return }
        if resumeTransfer { resume() }
        waiter.resume(with: ready)
    }

    /// Offers the bytes of `data` as the raw-bytes `offer` does (copied once).
    package func offer(_ data: Data, at arrival: ContinuousClock.Instant = .now, wakingReader: Bool = true) -> Offer {
        data.withUnsafeBytes { offer($0, at: arrival, wakingReader: wakingReader) }
    }

    /// Takes bytes whatever the reader holds, and says whether it now holds more than the
    /// limit (for a transport that cannot pause).
    package func append(_ data: Data, at arrival: ContinuousClock.Instant = .now) -> (taken: Bool, overLimit: Bool) {
        let (taken, over, waiter) = state.withLock { state -> (Bool, Bool, CheckedContinuation<HTTPBodyChunk?, any Error>?) in
            if state.finished { return (false, false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, false, waiter)
            }
            state.hold(data)
            state.arrival = arrival
            return (true, state.pending.count > limit, nil)
        }
        waiter?.resume(returning: HTTPBodyChunk(data: data, arrival: arrival))
        return (taken, over)
    }

    /// Ends the body: cleanly (`nil`) or with `error`; bytes still held are read first (a
    /// waiting reader gets them now, and the end at its next read). Later calls are ignored.
    package func finish(throwing error: (any Error)?) {
        let handed = state.withLock { state -> (CheckedContinuation<HTTPBodyChunk?, any Error>, Result<HTTPBodyChunk?, any Error>)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = error
            guard let waiter = state.waiter, let (ready, _) = state.takeReady() else { return nil }
            state.waiter = nil
            return (waiter, ready)
        }
        if let (waiter, ready) = handed { waiter.resume(with: ready) }
    }

    /// The reader is done: the body ends with `CancellationError` and the transfer is ended.
    ///
    /// An end the reader has not read yet is replaced too: the reader stopped before it, so
    /// what it reads next is its own cancel (a transport that cannot pause may overrun the
    /// buffer and fail while the reader is giving up; that must not read as a transport failure).
    package func cancel() {
        let (wasOpen, waiter) = state.withLock { state -> (Bool, CheckedContinuation<HTTPBodyChunk?, any Error>?) in
            let wasOpen = !state.finished
            state.finished = true
            state.pending = Data()
            if !state.endRead { state.failure = CancellationError() }
            defer { state.waiter = nil }
            return (wasOpen, state.waiter)
        }
        waiter?.resume(throwing: CancellationError())
        if wasOpen { cancelTransfer() }
    }

    /// Whether a reader is parked waiting for bytes (for tests of the wake rules).
    package var readerIsWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Whether the body has ended (finished, failed or cancelled).
    package var isFinished: Bool { state.withLock { $0.finished } }

    /// The bytes held, or the next that arrive; `nil` at a clean end.
    package func next() async throws -> HTTPBodyChunk? {
        if let ready = take(waiting: nil) { return try ready.get() }
        let chunk = try await withCheckedThrowingContinuation { continuation in
            if let ready = take(waiting: continuation) { continuation.resume(with: ready) }
        }
        // The bytes were handed over under this lock (offer took it after making them): taking
        // it again gives Thread Sanitizer the edge it does not see through the continuation.
        state.withLock { _ in }
        return chunk
    }

    /// What the reader gets now, or `nil` after parking `continuation` (when given) as the
    /// waiter; asks the transport to resume when this take empties a paused buffer.
    private func take(waiting continuation: CheckedContinuation<HTTPBodyChunk?, any Error>?) -> Result<HTTPBodyChunk?, any Error>? {
        let (ready, resumeTransfer) = state.withLock { state -> (Result<HTTPBodyChunk?, any Error>?, Bool) in
            if let (ready, resumeTransfer) = state.takeReady() { return (ready, resumeTransfer) }
            state.waiter = continuation
            return (nil, false)
        }
        if resumeTransfer { resume() }
        return ready
    }
}
