import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `scripts/servers/hostile_api.py` on a free loopback port: an origin whose answers lie about
/// their framing, never end or never finish (raw sockets, so the framing can be malformed).
///
/// Each behaviour lives under its own base URL, so a client pointed at ``base(_:)`` gets it for
/// every endpoint: `length/N`, `chunked/N` (0: without end), `gzip/N`, `trickle/MS`,
/// `processing/MS`, `cl/two|list|plus|huge|good`, `redirect/STATUS`, `record`, `repeat` (the
/// script's docstring says what each sends). Standard-library Python only.
public final class HostileOrigin: Sendable {
    /// The port it listens on.
    public let port: Int
    private let child: OwnedChild

    /// The script in the source tree.
    public static let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/hostile_api.py")

    /// Starts the origin and returns once it accepts connections; async code calls ``start()``.
    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await HostileOrigin.start()`")
    public init() throws {
        let candidates = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        guard let python = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LocalBackend.StartError(description: "no python3 found for the hostile origin")
        }
        let (process, port, end) = try startServer("the hostile origin", python: python, script: Self.script)
        self.port = port
        child = OwnedChild(process, end: end)
    }

    /// ``init()`` on a thread of its own (``onOwnThread(_:)``), not on the task pool.
    public static func start() async throws -> HostileOrigin {
        try await onOwnThread { try HostileOrigin() }
    }

    deinit { stop() }

    /// Ends the origin process and waits for it; idempotent.
    public func stop() {
        child.stop()
    }

    /// `http://127.0.0.1:PORT/<behaviour>/`, a base URL whose every endpoint gets `behaviour`.
    public func base(_ behaviour: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(behaviour)/") ?? URL(fileURLWithPath: "/")
    }

    /// The requests `record/` received, oldest first.
    public func recorded() throws -> [LocalBackend.Request] {
        guard let answer = loopbackExchange(port: port, "/_requests") else { throw LocalBackend.StartError(description: "no answer from /_requests (is the hostile origin running?)") }
        return try JSONDecoder().decode([LocalBackend.Request].self, from: answer.body)
    }
}
