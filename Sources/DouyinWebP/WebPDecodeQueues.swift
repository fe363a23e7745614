import DouyinSupport
import Foundation

/// Decodes the frames of many animations at once, first frames first: first frames run in
/// `Operation`s on a high-priority queue, later frames in `Operation`s on a low-priority
/// queue; an operation that finishes a frame goes on with the next frame of the same kind
/// the schedule gives it, one decode slot an operation.
///
/// ```swift
/// let queues = WebPDecodeQueues()                       // one decode per core, 64 MB budget
/// let requests = queues.decode(covers)                  // a grid's covers, all at once
/// for try await frame in requests[0].frames { cell.show(frame) }
/// requests[1].cancel()                                  // scrolled away
/// ```
///
/// Scheduling rules:
/// - At most ``Configuration-swift.struct/maxConcurrentDecodes`` frames decode at any moment,
///   across both queues, however many animations are requested.
/// - A later frame starts only when no first frame is waiting or decoding, so covers
///   requested in one call all show before any of them animates.
/// - Frames of one request are decoded in order, one at a time (each from the canvas before
///   it), and delivered in order.
/// - Later frames take turns in runs: up to eight of one request in a row (its canvas is
///   still in the core's cache), then the next request's.
/// - Frames waiting in streams count against ``Configuration-swift.struct/memoryBudget``: a stream decodes ahead only
///   while the frames held by all streams stay within it, and always at least one frame, so
///   a long animation plays by decoding a few frames ahead rather than holding them all.
///   Frames handed to an `onFrame` callback belong to the callback and are not counted.
public final class WebPDecodeQueues: Sendable {
    /// How the queues share the machine; every field has a default.
    public struct Configuration: Sendable, Hashable {
        /// How many frames may decode at once, across both queues; the active processor count by
        /// default; 1 or more.
        public var maxConcurrentDecodes: Int
        /// The most bytes of decoded frames held for streams at once; 64 MB (64 × 2^20 bytes) by
        /// default; 0 or more. Each stream may always hold one frame, so 0 means one frame per
        /// stream.
        public var memoryBudget: Int

        /// A configuration; omitted fields take their defaults. Stores the values as given:
        /// ``WebPDecodeQueues/init(configuration:)`` checks them.
        public init(maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount, memoryBudget: Int = 64 << 20) {
            self.maxConcurrentDecodes = maxConcurrentDecodes
            self.memoryBudget = memoryBudget
        }

        /// Throws for the first field outside its documented range (CONTRIBUTING.md: one rule
        /// for configuration values, checked where the configuration is used, never clamped).
        func validate() throws(WebPError) {
            guard maxConcurrentDecodes >= 1 else {
                throw .configurationOutOfRange(field: "maxConcurrentDecodes", value: String(maxConcurrentDecodes), allowed: "1 or more")
            }
            guard memoryBudget >= 0 else {
                throw .configurationOutOfRange(field: "memoryBudget", value: String(memoryBudget), allowed: "0 or more bytes")
            }
        }
    }

    /// What the queues have done since they were made.
    public struct Statistics: Sendable, Hashable {
        /// Frames decoded, whether delivered or dropped by a cancel meanwhile.
        public var decodedFrames: Int
        /// Frame decodes that failed.
        public var failedDecodes: Int
        /// The most decodes seen running at the same moment (at most `maxConcurrentDecodes`).
        public var peakConcurrentDecodes: Int
        /// The most bytes of frames held for streams at the same moment.
        public var peakHeldBytes: Int
    }

    /// The settings the queues were made with.
    public let configuration: Configuration
    /// Runs first frames (`qualityOfService` `.userInitiated`). Internal machinery, `package` for
    /// tests that wait for it to drain; users see only requests.
    package let firstFrameQueue: OperationQueue
    /// Runs later frames (`qualityOfService` `.utility`), so they never starve the app's other
    /// work. `package` for tests, like ``firstFrameQueue``.
    package let laterFrameQueue: OperationQueue

    private let scheduler = LockedBox(DecodeSchedule())
    private let decoding = LockedBox((now: 0, peak: 0, decoded: 0, failed: 0))

    /// Queues with the default configuration (one decode per core, 64 MB of frames held for
    /// streams), which is always valid, so this cannot fail.
    public convenience init() {
        self.init(checked: Configuration())
    }

    /// Queues that decode as `configuration` says; throws
    /// ``WebPError/configurationOutOfRange(field:value:allowed:)`` naming the first field outside
    /// its documented range.
    public convenience init(configuration: Configuration) throws(WebPError) {
        try configuration.validate()
        self.init(checked: configuration)
    }

    private init(checked configuration: Configuration) {
        self.configuration = configuration
        firstFrameQueue = OperationQueue()
        firstFrameQueue.name = "DouyinWebP.firstFrames"
        firstFrameQueue.qualityOfService = .userInitiated
        firstFrameQueue.maxConcurrentOperationCount = configuration.maxConcurrentDecodes
        laterFrameQueue = OperationQueue()
        laterFrameQueue.name = "DouyinWebP.laterFrames"
        laterFrameQueue.qualityOfService = .utility
        laterFrameQueue.maxConcurrentOperationCount = configuration.maxConcurrentDecodes
    }

    /// Starts decoding every frame of `animation`; read them from the request's `frames`.
    public func decode(_ animation: WebPAnimation) -> WebPDecodeRequest {
        decode([animation])[0]
    }

    /// Starts decoding every frame of each animation, all first frames before any later one.
    public func decode(_ animations: [WebPAnimation]) -> [WebPDecodeRequest] {
        enqueue(animations) { _ in nil }
    }

    /// Starts decoding every frame of `animation`, handing each to `onFrame` (on a decode thread,
    /// in order) and then calling `onEnd` once with `nil`, the error, or `nil` after a cancel.
    public func decode(_ animation: WebPAnimation,
                       onFrame: @escaping @Sendable (WebPCanvasFrame) -> Void,
                       onEnd: @escaping @Sendable ((any Error)?) -> Void = { _ in }) -> WebPDecodeRequest {
        enqueue([animation]) { _ in FrameCallbacks(frame: onFrame, end: onEnd) }[0]
    }

    /// Starts decoding every frame of each animation, all first frames before any later one,
    /// handing frames to `onFrame` and ends to `onEnd` with the animation's position in `animations`.
    public func decode(_ animations: [WebPAnimation],
                       onFrame: @escaping @Sendable (Int, WebPCanvasFrame) -> Void,
                       onEnd: @escaping @Sendable (Int, (any Error)?) -> Void = { _, _ in }) -> [WebPDecodeRequest] {
        enqueue(animations) { number in
            FrameCallbacks(frame: { onFrame(number, $0) }, end: { onEnd(number, $0) })
        }
    }

    /// A snapshot of what the queues have done so far.
    public var statistics: Statistics {
        let counts = decoding.withLock { $0 }
        return Statistics(decodedFrames: counts.decoded, failedDecodes: counts.failed, peakConcurrentDecodes: counts.peak,
                          peakHeldBytes: scheduler.withLock { $0.peakHeldBytes })
    }

    // MARK: Scheduling

    /// Registers every animation under one lock, so all their first frames wait before any starts.
    private func enqueue(_ animations: [WebPAnimation], callbacks: (Int) -> FrameCallbacks?) -> [WebPDecodeRequest] {
        let requests = scheduler.withLock { schedule in
            animations.enumerated().map { number, animation in
                let handlers = callbacks(number)
                let id = schedule.add(animation, callbacks: handlers)
                return WebPDecodeRequest(id: id, animation: animation, queues: self, streams: handlers == nil)
            }
        }
        startWhatCanRun()
        return requests
    }

    /// Hands operations to the queues while decode slots are free.
    func startWhatCanRun() {
        start(scheduler.withLock { schedule in
            schedule.takeRunnable(slots: configuration.maxConcurrentDecodes, budget: configuration.memoryBudget)
        })
    }

    /// Starts an operation for each job.
    private func start(_ jobs: [DecodeJob]) {
        for job in jobs {
            let started = LockedBox(false)
            let operation = BlockOperation { [self] in
                started.withLock { $0 = true }
                var next: DecodeJob? = job
                while let current = next {
                    run(current)
                    next = finishTakingNext(after: current)
                }
            }
            operation.queuePriority = job.frame == 0 ? .veryHigh : .low
            operation.qualityOfService = job.frame == 0 ? .userInitiated : .utility
            // A cancelled operation never runs its block but still completes: free its slot here.
            operation.completionBlock = { [self] in
                if !started.withLock({ $0 }) { finish(job) }
            }
            let cancelledMeanwhile = scheduler.withLock { $0.attach(operation, to: job) }
            if cancelledMeanwhile { operation.cancel() }
            (job.frame == 0 ? firstFrameQueue : laterFrameQueue).addOperation(operation)
        }
    }

    private func finish(_ job: DecodeJob) {
        scheduler.withLock { $0.finished(job) }
        startWhatCanRun()
    }

    /// Frees a decoded job's slot and lines up what can run now, from the decoding thread
    /// itself; returns the job this thread decodes next: the first one of the same kind (a
    /// first frame after a first frame, a later frame after a later one), so it keeps its
    /// operation's quality of service. It goes on without a new operation, which saves an
    /// operation and a thread's wake per frame (the last of 24 covers' first frames came at
    /// 0.57–0.83× one thread's loop over them with an operation a frame, 0.56–0.57× without,
    /// four runs each). The other jobs get operations of their own.
    private func finishTakingNext(after job: DecodeJob) -> DecodeJob? {
        var jobs = scheduler.withLock { schedule in
            schedule.finished(job)
            return schedule.takeRunnable(slots: configuration.maxConcurrentDecodes, budget: configuration.memoryBudget)
        }
        let next = jobs.firstIndex { ($0.frame == 0) == (job.frame == 0) }.map { jobs.remove(at: $0) }
        start(jobs)
        return next
    }

    /// Decodes one frame and delivers it, unless the request was cancelled meanwhile.
    private func run(_ job: DecodeJob) {
        guard scheduler.withLock({ $0.isActive(job.request) }) else { return }
        decoding.withLock { count in
            count.now += 1
            count.peak = max(count.peak, count.now)
        }
        let result = Result { () throws(WebPError) in try job.animation.frame(at: job.frame) }
        decoding.withLock { count in
            count.now -= 1
            if case .success = result { count.decoded += 1 } else { count.failed += 1 }
        }
        let delivery = scheduler.withLock { $0.deliver(result, for: job) }
        delivery.perform()
    }

    // MARK: Requests

    /// The next frame of a stream, waiting for it when none is decoded yet; `nil` at the end.
    func nextFrame(of request: Int) async throws -> WebPCanvasFrame? {
        if Task.isCancelled {
            cancel(request)
            return nil
        }
        let taken = scheduler.withLock { $0.take(from: request) }
        switch taken {
        case .frame(let frame):
            startWhatCanRun()
            return frame
        case .end(let error):
            if let error { throw error }
            return nil
        case .wait:
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let delivery = scheduler.withLock { $0.wait(in: request, continuation: continuation) }
                    delivery.perform()
                }
            } onCancel: {
                cancel(request)
            }
        }
    }

    /// Stops a request: its waiting work is dropped, a queued operation cancelled, a running
    /// one's frame discarded, and its stream ends.
    func cancel(_ request: Int) {
        let (operation, delivery) = scheduler.withLock { $0.cancel(request) }
        operation?.cancel()
        delivery.perform()
        startWhatCanRun()
    }

    /// Whether a request has ended (all frames delivered, failed, or cancelled).
    func hasEnded(_ request: Int) -> Bool {
        scheduler.withLock { !$0.isActive(request) }
    }
}

/// One animation's decode: its frames, in order, as a stream; cancel it when no longer needed.
public final class WebPDecodeRequest: Sendable {
    /// The animation being decoded.
    public let animation: WebPAnimation
    /// Every composited frame in order, then the end; throws the ``WebPError`` that stopped the
    /// decode. Pulling a frame frees its share of the budget. Read it from one task; releasing
    /// the request or cancelling that task cancels the decode. Empty for a callback request.
    public let frames: AsyncThrowingStream<WebPCanvasFrame, any Error>
    private let id: Int
    private let queues: WebPDecodeQueues

    init(id: Int, animation: WebPAnimation, queues: WebPDecodeQueues, streams: Bool) {
        self.id = id
        self.animation = animation
        self.queues = queues
        guard streams else {
            frames = AsyncThrowingStream { nil }
            return
        }
        // Held only by the stream: when the stream lets go of it (its reading task was
        // cancelled, or the stream was released), the request is cancelled so its frames stop.
        let lease = Lease(id) { [queues] id in queues.cancel(id) }
        frames = AsyncThrowingStream { [queues] in try await queues.nextFrame(of: lease.resource) }
    }

    /// Stops decoding: pending operations are cancelled, a running one's frame is dropped,
    /// `frames` ends, and an `onEnd` callback is called with `nil`.
    public func cancel() {
        queues.cancel(id)
    }

    /// Whether every frame was decoded, decoding failed, or the request was cancelled.
    public var hasEnded: Bool { queues.hasEnded(id) }
}
