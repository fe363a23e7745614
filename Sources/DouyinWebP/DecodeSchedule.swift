import Foundation

/// What a callback request is told: each frame, then its end.
struct FrameCallbacks: Sendable {
    let frame: @Sendable (WebPCanvasFrame) -> Void
    let end: @Sendable ((any Error)?) -> Void
}

/// One frame of one request, to decode.
struct DecodeJob: Sendable {
    let request: Int
    let frame: Int
    let animation: WebPAnimation
}

/// Hand-offs decided under the schedule's lock and performed after it is released, so no
/// continuation or callback ever runs while the lock is held.
struct Delivery {
    private var actions: [() -> Void] = []

    /// Nothing to hand off.
    static var none: Delivery { Delivery() }

    mutating func add(_ action: @escaping () -> Void) {
        actions.append(action)
    }

    func perform() {
        for action in actions { action() }
    }
}

/// What a stream's reader gets when it asks for the next frame.
enum TakenFrame {
    case frame(WebPCanvasFrame)
    case end((any Error)?)
    case wait
}

/// The state of every request of a ``WebPDecodeQueues``: pure bookkeeping, no threads; the
/// queues hold it behind one lock and act on what it decides.
struct DecodeSchedule {
    private enum End {
        case finished
        case failed(WebPError)
        case cancelled
    }

    private struct RequestState {
        let animation: WebPAnimation
        let callbacks: FrameCallbacks?
        var nextFrame = 0
        var isRunning = false
        var operation: Operation?
        var buffered: [WebPCanvasFrame] = []
        var waiters: [CheckedContinuation<WebPCanvasFrame?, any Error>] = []
        var end: End?
        /// Whether a reader has been handed the error that ended the request.
        var errorSeen = false
        /// Later frames decoded in a row since the request last went to the back of the line.
        var run = 0
    }

    /// How many later frames of one request decode in a row before the next request's turn:
    /// each frame is composited onto the one before, so the next frame of the same animation
    /// finds its canvas still in the core's cache, where the next animation's is cold. With
    /// one decode at a time, every frame of 24 eight-frame covers took 1.15× a plain loop's
    /// time taking turns frame by frame, 1.12× in runs of 4, 1.04–1.07× in runs of 8 (medians
    /// of 3–15 runs of `douyinkit-bench webp-queues`, BENCHMARKS.md "Session 16"). The cost:
    /// with 24 such covers on two cores, the last one's second frame comes about 0.2 s after
    /// its first, not 30 ms.
    static let laterFrameRun = 8

    private var requests: [Int: RequestState] = [:]
    private var nextID = 0
    private var firstFrames: [Int] = []
    private var laterFrames: [Int] = []
    private var slotsInUse = 0
    private var firstFramesInFlight = 0
    private var heldBytes = 0
    /// The most bytes of frames buffered for streams at one moment.
    private(set) var peakHeldBytes = 0

    /// Registers a request; its first frame waits for a slot.
    mutating func add(_ animation: WebPAnimation, callbacks: FrameCallbacks?) -> Int {
        let id = nextID
        nextID += 1
        requests[id] = RequestState(animation: animation, callbacks: callbacks)
        firstFrames.append(id)
        return id
    }

    /// Whether a request is still decoding.
    func isActive(_ id: Int) -> Bool {
        requests[id].map { $0.end == nil } ?? false
    }

    /// The jobs to start now: first frames while any wait, later frames only once no first
    /// frame waits or runs, never more than `slots` running, and streams within `budget`.
    mutating func takeRunnable(slots: Int, budget: Int) -> [DecodeJob] {
        var jobs: [DecodeJob] = []
        while slotsInUse < slots {
            let id: Int
            if !firstFrames.isEmpty {
                id = firstFrames.removeFirst()
            } else if firstFramesInFlight == 0, let position = laterFrames.firstIndex(where: { mayDecodeAhead($0, budget: budget) }) {
                id = laterFrames.remove(at: position)
            } else {
                break
            }
            guard var state = requests[id] else { continue }
            if state.nextFrame == 0 { firstFramesInFlight += 1 }
            state.isRunning = true
            requests[id] = state
            slotsInUse += 1
            jobs.append(DecodeJob(request: id, frame: state.nextFrame, animation: state.animation))
        }
        return jobs
    }

    /// A stream may decode another frame when it holds none, or when one more fits the budget.
    private func mayDecodeAhead(_ id: Int, budget: Int) -> Bool {
        guard let state = requests[id] else { return true }
        return state.callbacks != nil || state.buffered.isEmpty || heldBytes + state.animation.canvasByteCount <= budget
    }

    /// Records the operation running a job; `true` if its request was cancelled meanwhile.
    mutating func attach(_ operation: Operation, to job: DecodeJob) -> Bool {
        guard isActive(job.request) else { return true }
        requests[job.request]?.operation = operation
        return false
    }

    /// Hands a decoded frame (or the error) to the request's callback, waiting reader or buffer.
    mutating func deliver(_ result: Result<WebPCanvasFrame, WebPError>, for job: DecodeJob) -> Delivery {
        guard var state = requests[job.request], state.end == nil else { return .none }
        var delivery = Delivery()
        switch result {
        case .success(let frame):
            state.nextFrame += 1
            let isLast = state.nextFrame == state.animation.frames.count
            if isLast { state.end = .finished }
            if let callbacks = state.callbacks {
                delivery.add { callbacks.frame(frame) }
                if isLast { delivery.add { callbacks.end(nil) } }
            } else if !state.waiters.isEmpty {
                let waiter = state.waiters.removeFirst()
                delivery.add { waiter.resume(returning: frame) }
                if isLast { Self.endWaiters(&state, with: nil, into: &delivery) }
            } else {
                state.buffered.append(frame)
                heldBytes += frame.rgba.count
                peakHeldBytes = max(peakHeldBytes, heldBytes)
            }
        case .failure(let error):
            state.end = .failed(error)
            if let callbacks = state.callbacks { delivery.add { callbacks.end(error) } }
            Self.endWaiters(&state, with: error, into: &delivery)
        }
        requests[job.request] = state
        return delivery
    }

    /// Frees the slot of a finished (or cancelled) operation and lines up the request's next frame.
    mutating func finished(_ job: DecodeJob) {
        slotsInUse -= 1
        if job.frame == 0 { firstFramesInFlight -= 1 }
        guard var state = requests[job.request] else { return }
        state.isRunning = false
        state.operation = nil
        if state.end == nil {
            // A run of later frames goes on at the front of the line; a first frame, or a
            // run that is long enough, goes to the back.
            if job.frame > 0, state.run + 1 < Self.laterFrameRun {
                state.run += 1
                laterFrames.insert(job.request, at: 0)
            } else {
                state.run = 0
                laterFrames.append(job.request)
            }
        }
        requests[job.request] = state
        if state.end != nil { retireIfDone(job.request) }
    }

    /// The next buffered frame of a stream, its end, or `wait`.
    mutating func take(from id: Int) -> TakenFrame {
        guard var state = requests[id] else { return .end(nil) }
        if !state.buffered.isEmpty {
            let frame = state.buffered.removeFirst()
            heldBytes -= frame.rgba.count
            requests[id] = state
            retireIfDone(id)
            return .frame(frame)
        }
        switch state.end {
        case nil:
            return .wait
        case .failed(let error):
            requests[id] = nil
            return .end(error)
        case .finished, .cancelled:
            retireIfDone(id)
            return .end(nil)
        }
    }

    /// Parks a stream's reader until its next frame or end; answers at once if that came meanwhile.
    mutating func wait(in id: Int, continuation: CheckedContinuation<WebPCanvasFrame?, any Error>) -> Delivery {
        var delivery = Delivery()
        switch take(from: id) {
        case .frame(let frame):
            delivery.add { continuation.resume(returning: frame) }
        case .end(let error):
            delivery.add { if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) } }
        case .wait:
            requests[id]?.waiters.append(continuation)
        }
        return delivery
    }

    /// Ends a request; returns its running operation, to cancel, and the hand-offs that end it.
    mutating func cancel(_ id: Int) -> (Operation?, Delivery) {
        // A finished stream whose frames are still buffered is cancelled too: its reader stops.
        guard var state = requests[id] else { return (nil, .none) }
        switch state.end {
        case nil: break
        case .finished where !state.buffered.isEmpty: break
        default: return (nil, .none)
        }
        state.end = .cancelled
        firstFrames.removeAll { $0 == id }
        laterFrames.removeAll { $0 == id }
        heldBytes -= state.buffered.reduce(0) { $0 + $1.rgba.count }
        state.buffered = []
        var delivery = Delivery()
        if let callbacks = state.callbacks { delivery.add { callbacks.end(nil) } }
        Self.endWaiters(&state, with: nil, into: &delivery)
        requests[id] = state
        retireIfDone(id)
        return (state.operation, delivery)
    }

    private static func endWaiters(_ state: inout RequestState, with error: WebPError?, into delivery: inout Delivery) {
        let waiters = state.waiters
        state.waiters = []
        if error != nil && !waiters.isEmpty { state.errorSeen = true }
        for waiter in waiters {
            delivery.add { if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) } }
        }
    }

    /// Forgets a request that has ended with nothing left to hand out. A failed stream is kept
    /// until its reader has seen the error.
    private mutating func retireIfDone(_ id: Int) {
        guard let state = requests[id], let end = state.end, !state.isRunning, state.buffered.isEmpty else { return }
        if case .failed = end, state.callbacks == nil, !state.errorSeen { return }
        requests[id] = nil
    }
}
