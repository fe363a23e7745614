import Foundation

/// Paths to the package's own test data under `Fixtures/`.
public enum Fixtures {
    /// The package root, found from this file's place in the source tree.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // DouyinTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The URL of a fixture, such as `api/feed.json`.
    public static func url(_ relativePath: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// The bytes of a fixture; a missing fixture is a test failure, so it throws.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}

/// The real captured API responses (`../shared/captures`), when this machine has them.
public enum Captures {
    /// The captures folder: `$DOUYIN_CAPTURES`, else `../shared/captures` beside the package;
    /// `nil` when neither exists (the conformance suite then skips, visibly).
    public static let directory: URL? = {
        var candidates: [URL] = []
        if let custom = ProcessInfo.processInfo.environment["DOUYIN_CAPTURES"] {
            candidates.append(URL(fileURLWithPath: custom))
        }
        candidates.append(Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("awemes.json").path) }
    }()

    /// Whether the captures are present, for enabling the conformance tests.
    public static var available: Bool { directory != nil }

    /// The bytes of one capture, such as `variant/awemes.json`.
    public static func data(_ relativePath: String) throws -> Data {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }
}
