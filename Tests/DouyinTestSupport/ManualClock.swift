import Foundation

/// A clock that moves only when a test says so.
public final class ManualClock: @unchecked Sendable {
    // @unchecked Sendable: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current: Date

    /// Starts at `start` (a fixed date by default, so runs are repeatable).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = start
    }

    /// The clock's time.
    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
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
