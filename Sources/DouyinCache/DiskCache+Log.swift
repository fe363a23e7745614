import DouyinLogging

/// The disk cache's events for ``DiskCache/Configuration/log``: built only when a hook is set,
/// and sent after the index lock is released (the hook is the app's code).
extension DiskCache {
    /// What one trim removed.
    struct Eviction {
        var count = 0
        var bytes: Int64 = 0
    }

    /// Why a read removed an entry.
    enum Removal {
        case expired
        case damaged
    }

    private static let subsystem = "DouyinCache.DiskCache"

    /// Logs a refused store and hands its error back, for `throw refused(…)`.
    func refused(_ error: CacheError) -> CacheError {
        guard let log = configuration.log else { return error }
        let level: LogEvent.Level
        let message: String
        switch error {
        case .entryTooLarge: (level, message) = (.notice, "store refused: entry too large")
        case .diskFull: (level, message) = (.error, "store failed: disk full")
        default: (level, message) = (.error, "store failed")
        }
        log(LogEvent(level: level, subsystem: Self.subsystem, message: message, metadata: ["error": error.description]))
        return error
    }

    /// Logs what a trim removed, when it removed anything.
    func log(_ evicted: Eviction, reason: String) {
        guard evicted.count > 0, let log = configuration.log else { return }
        log(LogEvent(level: .info, subsystem: Self.subsystem, message: "entries evicted",
                     metadata: ["count": String(evicted.count), "bytes": String(evicted.bytes), "reason": reason]))
    }

    /// Logs an entry a read found expired or damaged, and removed.
    func log(_ removal: Removal, key: String) {
        guard let log = configuration.log else { return }
        switch removal {
        case .expired:
            log(LogEvent(level: .debug, subsystem: Self.subsystem, message: "expired entry removed", metadata: ["key": key]))
        case .damaged:
            log(LogEvent(level: .notice, subsystem: Self.subsystem, message: "damaged entry removed", metadata: ["key": key]))
        }
    }
}
