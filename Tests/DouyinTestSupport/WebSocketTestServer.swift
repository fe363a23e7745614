import DouyinBackendLauncher
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Python WebSocket test server (scripts/servers/ws_test_server.py on
/// Debian's python3-websockets), started on free loopback ports; it exits when its stdin closes.
/// Used by the chat tests and the `chat listen` tool tests.
public final class WebSocketTestServer: @unchecked Sendable {
    // @unchecked: every stored property is set once in init; Process and Pipe are only read after.
    /// One server for the whole test run; it exits when the test process ends (its stdin closes).
    public static let shared = StartedOnce { try WebSocketTestServer() }

    /// The port of the websockets-library server (echo, push, close codes).
    public let wsPort: Int
    /// The port of the raw asyncio server that breaks the protocol on purpose.
    public let rawPort: Int
    private let process: Process
    private let input: Pipe
    private let end: ProcessEnd

    /// Starts the server and returns once it printed its ports; async code uses ``shared``.
    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await WebSocketTestServer.shared.value()`")
    public init() throws {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/ws_test_server.py")
        process = Process()
        // Debian's interpreter: the one on PATH may be another that cannot import python3-websockets.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe.forwardedToStandardError()
        end = try process.runWithSignalsUnblocked()
        let line = output.firstLine()
        let words = line.split(whereSeparator: \.isWhitespace)
        guard words.count == 3, words[0] == "PORTS", let ws = Int(words[1]), let raw = Int(words[2]) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "ws_test_server.py did not start: \(line)"])
        }
        wsPort = ws
        rawPort = raw
    }

    deinit {
        try? input.fileHandleForWriting.close()
        end.waitHere()
    }

    /// A URL on the websockets-library server, such as `url("/push?count=3")`.
    public func url(_ path: String) -> URL { URL(string: "ws://127.0.0.1:\(wsPort)\(path)")! }
    /// A URL on the raw server, such as `rawURL("/raw/masked")`.
    public func rawURL(_ path: String) -> URL { URL(string: "ws://127.0.0.1:\(rawPort)\(path)")! }

    /// The close code the client sent after the raw server's violation at `path` ("none" if none in 120 s).
    public func lastClose(_ path: String) async throws -> String {
        try await ask("lastclose", path)
    }

    /// Who ended the TCP connection after the client's close frame that answered the raw
    /// server's violation at `path`: `client` (it failed the connection and dropped it, RFC 6455
    /// §7.1.7), `server` (the client still held it 120 s later), `none` (no close frame came).
    public func lastDrop(_ path: String) async throws -> String {
        try await ask("lastdrop", path)
    }

    /// Lets the raw server's `/raw/closewait` close the TCP connection it holds after
    /// answering the client's close frame.
    public func release(_ path: String) async throws {
        _ = try await ask("release", path)
    }

    private func ask(_ question: String, _ path: String) async throws -> String {
        // The server waits up to 120 s for the client (240 s for a drop); the request outlasts it.
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(rawPort)/\(question)?path=\(path)")!, timeoutInterval: 600)
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }
}
