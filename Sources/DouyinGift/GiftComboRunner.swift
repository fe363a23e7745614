import DouyinSupport
import Foundation

/// Drives a ``GiftComboEngine`` on a clock (the continuous clock, or one injected): safe to
/// call from any thread, firing the engine's timers itself, and reporting events in order as an `AsyncStream` and as
/// ``GiftDisplayOperation``s on one `OperationQueue` per track.
///
/// Each step changes the engine and the runner's bookkeeping under its lock; everything that
/// can call out — adding an operation to its queue, finishing it (its KVO notifications),
/// `onShow`, the streams — runs afterwards on the runner's serial delivery queue, in engine
/// order and with no lock held, so a KVO observer or `onShow` may call back into the runner.
public final class GiftComboRunner: Sendable {
    private struct State {
        var engine: GiftComboEngine
        var operations: [Int: GiftDisplayOperation] = [:]
        var streams: [Int: AsyncStream<GiftEvent>.Continuation] = [:]
        var nextStreamID = 0
        /// The deadline a timer is already set for, so sends do not pile up timers.
        var scheduledDeadline: Duration?
    }

    private let state: LockedBox<State>
    /// The time since the runner started, on its clock.
    private let now: @Sendable () -> Duration
    /// Suspends until the runner's clock reads the given time since the start.
    private let sleep: @Sendable (Duration) async throws -> Void
    /// One serial queue per track; its one executing operation is the unit on screen.
    public let trackQueues: [OperationQueue]
    /// Performs each step's actions and delivers its events, one step at a time, in engine order.
    private let queue = DispatchQueue(label: "DouyinGift.GiftComboRunner")

    /// Called on the runner's delivery queue with each unit's operation as the unit shows,
    /// before that `show` event reaches the streams.
    private let onShow: (@Sendable (GiftDisplayOperation) -> Void)?

    /// What a step leaves to do outside the lock, in engine order.
    private enum Action {
        /// A unit showed: queue its operation, then hand it to `onShow`.
        case show(GiftDisplayOperation)
        /// A unit hid: finish its operation (its KVO notifications go out here).
        case finish(GiftDisplayOperation)
    }

    /// Makes a runner on the continuous clock, starting now; `onShow` receives each unit's
    /// operation as it shows.
    ///
    /// - Throws: ``GiftError/configurationOutOfRange(field:value:allowed:)``.
    public convenience init(
        configuration: GiftComboEngine.Configuration = GiftComboEngine.Configuration(),
        onShow: (@Sendable (GiftDisplayOperation) -> Void)? = nil
    ) throws(GiftError) {
        try self.init(configuration: configuration, clock: ContinuousClock(), onShow: onShow)
    }

    /// Makes a runner whose timers wait on `clock` (a test clock in tests), starting at its
    /// current time; `onShow` receives each unit's operation as it shows.
    ///
    /// - Throws: ``GiftError/configurationOutOfRange(field:value:allowed:)``.
    public init<C: Clock>(
        configuration: GiftComboEngine.Configuration = GiftComboEngine.Configuration(),
        clock: C,
        onShow: (@Sendable (GiftDisplayOperation) -> Void)? = nil
    ) throws(GiftError) where C.Duration == Duration {
        self.onShow = onShow
        state = LockedBox(State(engine: try GiftComboEngine(configuration: configuration)))
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { time in try await clock.sleep(until: origin.advanced(by: time), tolerance: nil) }
        trackQueues = (0..<configuration.tracks).map { track in
            let queue = OperationQueue()
            queue.name = "DouyinGift.track\(track)"
            queue.maxConcurrentOperationCount = 1
            return queue
        }
    }

    deinit {
        // Finished outside the lock: a stream's termination handler may take it.
        let streams = state.withLock { state in
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        streams.forEach { $0.finish() }
    }

    /// Applies a send now.
    ///
    /// - Throws: ``GiftError/countOutOfRange(_:key:)`` or ``GiftError/valueOutOfRange(_:key:)``;
    ///   the send is then ignored.
    public func send(_ send: GiftSend) throws(GiftError) {
        try update { engine, time, events throws(GiftError) in try engine.send(send, at: time, into: &events) }
    }

    /// The events from now on, in order; the stream ends when the runner is released.
    public func events() -> AsyncStream<GiftEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: GiftEvent.self)
        let id = state.withLock { state in
            defer { state.nextStreamID += 1 }
            state.streams[state.nextStreamID] = continuation
            return state.nextStreamID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// The operation of a unit on screen, by the id its events carry.
    public func operation(forUnit unit: Int) -> GiftDisplayOperation? {
        state.withLock { $0.operations[unit] }
    }

    /// How long the runner has been running: the clock its events are stamped with.
    public var elapsed: Duration { now() }

    /// Runs one engine step under the lock and queues its actions and events for the delivery
    /// queue, which performs them in the same order once the lock is released.
    private func update(
        timerFired: Bool = false,
        _ step: (inout GiftComboEngine, Duration, inout [GiftEvent]) throws(GiftError) -> Void
    ) throws(GiftError) {
        let failure = state.withLock { state -> GiftError? in
            if timerFired { state.scheduledDeadline = nil }
            var events: [GiftEvent] = []
            do throws(GiftError) {
                try step(&state.engine, elapsed, &events)
            } catch {
                return error
            }
            let actions = events.compactMap { record($0, in: &state) }
            if !events.isEmpty {
                let streams = Array(state.streams.values), onShow = self.onShow, trackQueues = self.trackQueues
                let delivered = events
                // Queued under the lock so steps keep their order; run without it.
                queue.async {
                    for action in actions {
                        switch action {
                        case .show(let operation):
                            trackQueues[operation.track].addOperation(operation)
                            onShow?(operation)
                        case .finish(let operation):
                            operation.finish()
                        }
                    }
                    delivered.forEach { event in streams.forEach { $0.yield(event) } }
                }
            }
            scheduleTimer(&state)
            return nil
        }
        if let failure { throw failure }
    }

    /// Updates the table of operations for one event; returns what must happen outside the lock.
    private func record(_ event: GiftEvent, in state: inout State) -> Action? {
        switch event.kind {
        case .show:
            let operation = GiftDisplayOperation(key: event.key, unit: event.unit, track: event.track)
            state.operations[event.unit] = operation
            return .show(operation)
        case .hide:
            return state.operations.removeValue(forKey: event.unit).map(Action.finish)
        case .combo, .dropped, .firstDisplay:
            return nil
        }
    }

    /// The longest single wait of the timer; a later deadline is reached by waiting again, so
    /// no wait is converted to a clock's own units from an arbitrarily large window.
    private static let longestWait: Duration = .seconds(60)

    private func scheduleTimer(_ state: inout State) {
        guard let deadline = state.engine.nextDeadline else { return }
        if let scheduled = state.scheduledDeadline, scheduled <= deadline { return }
        state.scheduledDeadline = deadline
        let wake = min(deadline, now() + Self.longestWait), sleep = self.sleep
        Task { [weak self] in
            // Nothing cancels this task; a released runner is simply not fired.
            try? await sleep(wake)
            self?.fireTimers()
        }
    }

    private func fireTimers() {
        // The clock reaches GiftComboEngine.maximumTime only after 285,000 years of running.
        try? update(timerFired: true) { engine, time, events throws(GiftError) in
            try engine.advance(to: time, into: &events)
        }
    }
}
