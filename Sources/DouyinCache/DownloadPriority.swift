import Foundation

/// How soon a download should run relative to others waiting in the ``Downloader``'s queue;
/// ordered ``low`` < ``normal`` < ``high``.
public enum DownloadPriority: Sendable, Hashable, Comparable {
    /// Prefetching work that can wait.
    case low
    /// The default.
    case normal
    /// Something on screen now.
    case high

    var queuePriority: Operation.QueuePriority {
        switch self {
        case .low: .low
        case .normal: .normal
        case .high: .high
        }
    }
}
