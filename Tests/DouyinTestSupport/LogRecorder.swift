import DouyinLogging
import DouyinSupport

/// Keeps every event a component logs, for tests: set ``handler`` in the component's
/// configuration, then read ``events``.
public final class LogRecorder: Sendable {
    private let recorded = LockedBox<[LogEvent]>([])

    /// An empty recorder.
    public init() {}

    /// The hook to put in a configuration's `log`.
    public var handler: LogHandler {
        LogHandler { [recorded] event in recorded.withLock { $0.append(event) } }
    }

    /// The events so far, in the order they were logged.
    public var events: [LogEvent] { recorded.withLock { $0 } }

    /// The events whose message is `message`.
    public func events(_ message: String) -> [LogEvent] {
        events.filter { $0.message == message }
    }
}
