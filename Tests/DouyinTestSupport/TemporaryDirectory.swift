import Foundation

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

/// Runs `body` with a fresh ``TemporaryDirectory`` and removes the directory when `body`
/// returns or throws, so a test needs no `defer { folder.remove() }` of its own.
///
/// - Throws: what creating the directory throws, or what `body` throws.
public func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) async throws -> Result) async throws -> Result {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    return try await body(folder)
}

/// The synchronous form of ``withTemporaryDirectory(_:)-(TemporaryDirectory)async``.
///
/// - Throws: what creating the directory throws, or what `body` throws.
public func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    return try body(folder)
}
