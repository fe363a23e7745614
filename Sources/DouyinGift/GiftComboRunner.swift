import DouyinSupport
import Foundation


/// Drives a ``GiftComboEngine`` with the real clock: safe to call from any thread, firing the
/// engine's timers itself, and reporting events in order as an `AsyncStream` and as
/// ``GiftDisplayOperation``s on one `OperationQueue` per track.
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
    private let origin = ContinuousClock.now
    /// One serial queue per track; its one executing operation is the unit on screen.
    public let trackQueues: [OperationQueue]
    /// Fires timers and delivers events, one at a time and in engine order.
    private let queue = DispatchQueue(label: "DouyinGift.GiftComboRunner")

    /// Called on the runner's delivery queue with each unit's operation as the unit shows,
    /// before that `show` event reaches the streams.
    private let onShow: (@Sendable (GiftDisplayOperation) -> Void)?

    /// Makes a runner whose clock starts now; `onShow` receives each unit's operation as it shows.
    public init(
        configuration: GiftConfiguration = GiftConfiguration(),
        onShow: (@Sendable (GiftDisplayOperation) -> Void)? = nil
    ) {
        self.onShow = onShow
        state = LockedBox(State(engine: GiftComboEngine(configuration: configuration)))
        trackQueues = (0..<configuration.tracks).map { track in
            let queue = OperationQueue()
            queue.name = "DouyinGift.track\(track)"
            queue.maxConcurrentOperationCount = 1
            return queue
        }
    }

    deinit {
        state.withLock { $0.streams.values.forEach { $0.finish() } }
    }

    /// Applies a send now.
    public func send(_ send: GiftSend) {
        update { engine, time, events in engine.send(send, at: time, into: &events) }
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
    public var elapsed: Duration { ContinuousClock.now - origin }

    /// Runs one engine step under the lock, then applies its events to the operations,
    /// streams and timer in the same order.
    private func update(timerFired: Bool = false, _ step: (inout GiftComboEngine, Duration, inout [GiftEvent]) -> Void) {
        state.withLock { state in
            if timerFired { state.scheduledDeadline = nil }
            var events: [GiftEvent] = []
            step(&state.engine, elapsed, &events)
            let shown = events.compactMap { apply($0, to: &state) }
            if !events.isEmpty {
                let streams = Array(state.streams.values), delivered = events, onShow = self.onShow
                queue.async {
                    shown.forEach { onShow?($0) }
                    delivered.forEach { event in streams.forEach { $0.yield(event) } }
                }
            }
            scheduleTimer(&state)
        }
    }

    /// Starts or finishes the event's operation; returns the operation of a unit just shown.
    private func apply(_ event: GiftEvent, to state: inout State) -> GiftDisplayOperation? {
        switch event.kind {
        case .show:
            let operation = GiftDisplayOperation(key: event.key, unit: event.unit, track: event.track)
            state.operations[event.unit] = operation
            trackQueues[event.track].addOperation(operation)
            return operation
        case .hide:
            state.operations.removeValue(forKey: event.unit)?.finish()
            return nil
        case .combo, .dropped, .firstDisplay:
            return nil
        }
    }

    private func scheduleTimer(_ state: inout State) {
        guard let deadline = state.engine.nextDeadline else { return }
        if let scheduled = state.scheduledDeadline, scheduled <= deadline { return }
        state.scheduledDeadline = deadline
        let delay = max(.zero, deadline - elapsed)
        let nanoseconds = delay / .nanoseconds(1)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds.rounded(.up)))) { [weak self] in
            self?.fireTimers()
        }
    }

    private func fireTimers() {
        update(timerFired: true) { engine, time, events in
            engine.advance(to: time, into: &events)
        }
    }
}
