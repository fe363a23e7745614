/// One thing a component did that an app may want in its log: a download started or ended,
/// a resource dropped from a cache, a request retried, an index discarded. Components emit a
/// handful of these per unit of work, never one per byte or per chunk.
///
/// Hand them to `os.Logger`, swift-log or `print` from a ``LogHandler`` set in a component's
/// `Configuration`; with none set (the default) nothing is built and nothing is printed.
public struct LogEvent: Sendable, Hashable, CustomStringConvertible {
    /// How much an event matters, from ``debug`` to ``error``; ordered.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// Detail for someone debugging the component (a request's exact range).
        case debug
        /// Normal work worth a line (a download ended, a job finished).
        case info
        /// Something the component handled that an app may care about (a retry, a drop to
        /// stay under a size limit, a discarded index).
        case notice
        /// Work that failed and was given up (a download or a request that failed for good).
        case error

        /// Lower levels first: `debug < info < notice < error`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name in lower case (`"info"`).
        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .error: "error"
            }
        }
    }

    /// How much it matters.
    public var level: Level
    /// Which component emitted it, as `Module.Type` (`"DouyinVideoCache.VideoCache"`); a
    /// stable string an app can filter on or use as an `os.Logger` category.
    public var subsystem: String
    /// What happened, a short sentence-like phrase without the values (`"download ended"`).
    public var message: String
    /// The values, by name (`url`, `bytes`, `error`, …): bytes as decimal counts, durations
    /// in seconds; empty when there are none.
    public var metadata: [String: String]

    /// An event; `metadata` empty when not given.
    public init(level: Level, subsystem: String, message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.subsystem = subsystem
        self.message = message
        self.metadata = metadata
    }

    /// One line: `level subsystem: message key=value …`, the metadata sorted by key so equal
    /// events print equal lines.
    public var description: String {
        let values = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return (["\(level) \(subsystem): \(message)"] + values).joined(separator: " ")
    }
}
