import DouyinSupport
import Foundation

/// A wall clock (`Date`) that moves only when a test says so; for components that stamp
/// entries with dates. Components that wait take a ``TestClock`` instead.
public final class ManualClock: Sendable {
    private let current: LockedBox<Date>

    /// Starts at `start` (a fixed date by default, so runs are repeatable).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = LockedBox(start)
    }

    /// The clock's time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}

/// A fresh temporary directory for one test, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates it.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside it.
    public func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

    /// Deletes it and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
