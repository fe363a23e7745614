/// Where a component sends its ``LogEvent``s: set one in the component's `Configuration`
/// (`log`, `nil` by default: nothing is built or printed) and forward the events to
/// `os.Logger`, swift-log or a file.
///
/// ```swift
/// var configuration = VideoCache.Configuration()
/// configuration.log = LogHandler { event in logger.log("\(event.description)") }
/// ```
///
/// - Important: called on an arbitrary thread, never under a component's lock, possibly from
///   several threads at once; it must be quick and must not block.
///
/// Two handlers are equal only when they are the same handler (copies of one value), so a
/// `Hashable` configuration that holds one stays `Hashable`.
public struct LogHandler: Sendable, Hashable {
    /// A class so that a handler has an identity to compare by: closures cannot be compared.
    private final class Box: Sendable {
        let handle: @Sendable (LogEvent) -> Void
        init(_ handle: @escaping @Sendable (LogEvent) -> Void) { self.handle = handle }
    }

    private let box: Box

    /// A handler that calls `handle` with every event.
    public init(_ handle: @escaping @Sendable (LogEvent) -> Void) {
        box = Box(handle)
    }

    /// Sends `event` to the handler.
    public func callAsFunction(_ event: LogEvent) {
        box.handle(event)
    }

    /// Whether both are copies of one handler.
    public static func == (lhs: LogHandler, rhs: LogHandler) -> Bool { lhs.box === rhs.box }

    /// Hashes the handler's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
}
