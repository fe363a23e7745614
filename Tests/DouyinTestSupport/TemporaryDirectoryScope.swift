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
