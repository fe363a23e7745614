import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local demo backend (`Backend/demo_backend.py`, a resource of this module) on a free loopback port, for tests,
/// the tool's demo and the benchmark (so it lives outside the test-support target: the shipped
/// tool must not link test code): every endpoint of DESIGN.md's table over Fixtures/api, with state,
/// the WebSocket push at `ws://127.0.0.1:PORT/douyin/groupchat`, and switches under `/_debug/`.
///
/// Needs a Python 3 that can `import websockets`: `$DOUYIN_PYTHON`, else `/usr/bin/python3`,
/// else `python3` on PATH (a pyenv `python3` does not see Debian's `python3-websockets`).
public final class LocalBackend: Sendable {
    /// The port it listens on (HTTP and WebSocket share it).
    public let port: Int
    /// `http://127.0.0.1:PORT/douyin/`, the API's base URL.
    public let baseURL: URL
    private let child: OwnedChild

    /// Why the backend could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong and how to fix it.
        public let description: String

        /// A start failure saying `description`; the other stand-in servers' harnesses use it too.
        package init(description: String) { self.description = description }
    }

    /// One request the backend received.
    public struct Request: Sendable, Hashable, Decodable {
        /// `GET`, `POST`, `DELETE`…
        public let method: String
        /// The path, such as `/douyin/user`.
        public let path: String
        /// The raw query string, still percent-encoded ("" when none).
        public let query: String
        /// Header name/value pairs in the order sent.
        public let headers: [[String]]
        /// The body, base64 as recorded.
        let body: String

        /// The body's bytes.
        public var bodyData: Data { Data(base64Encoded: body) ?? Data() }

        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }.flatMap { $0.count > 1 ? $0[1] : nil }
        }

        /// The query's fields, decoded as a form (`+` is a space).
        public var queryFields: [String: String] { Self.formFields(query) }

        /// The body's fields, decoded as `application/x-www-form-urlencoded`.
        public var formFields: [String: String] { Self.formFields(String(decoding: bodyData, as: UTF8.self)) }

        static func formFields(_ text: String) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (raw: Substring) in String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(raw) }
                fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return fields
        }
    }

    /// A Python that can import `websockets`, or `nil` with nothing found.
    public static let python: String? = {
        var candidates: [String] = []
        if let custom = ProcessInfo.processInfo.environment["DOUYIN_PYTHON"] { candidates.append(custom) }
        candidates += ["/usr/bin/python3", "/opt/homebrew/bin/python3", "/usr/local/bin/python3"]
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            candidates += path.split(separator: ":").map { "\($0)/python3" }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && canImportWebsockets($0) }
    }()

    private static func canImportWebsockets(_ python: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import websockets"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard let end = try? probe.runWithSignalsUnblocked() else { return false }
        end.waitHere()
        return probe.terminationStatus == 0
    }

    /// The package's demo data (`Sources/DouyinBackendLauncher/Fixtures`: API captures, WebP
    /// covers, a clip, gift scripts), read from this module's resource bundle, so the tool's demo
    /// finds it wherever it runs and whatever the working directory, not only in its checkout.
    public static let fixtures: URL = resource("Fixtures")

    /// The backend script (`Sources/DouyinBackendLauncher/Backend/demo_backend.py`, with its
    /// `backend/` package and `ws_protocol.py`), from the same bundle.
    public static let script: URL = resource("Backend").appendingPathComponent("demo_backend.py")

    private static func resource(_ name: String) -> URL {
        // SwiftPM copies both folders whole (`.copy` in Package.swift); a bundle without them
        // would be a broken build, not a condition to recover from.
        guard let url = Bundle.module.url(forResource: name, withExtension: nil) else {
            fatalError("\(name) is missing from DouyinBackendLauncher's resource bundle")
        }
        return url
    }

    /// Starts the backend on a free loopback port over `fixtures` (``fixtures``' `api` folder by
    /// default) and returns once it accepts connections. Blocks meanwhile: async code calls
    /// ``start(fixtures:)``.
    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await LocalBackend.start(fixtures:)`")
    public init(fixtures: URL = LocalBackend.fixtures.appendingPathComponent("api")) throws {
        guard let python = Self.python else {
            throw StartError(description: "no Python 3 with the websockets package: on Debian `apt-get install python3-websockets` (then /usr/bin/python3 has it), on macOS `pip3 install websockets`; or set DOUYIN_PYTHON")
        }
        let (process, port, end) = try startServer("the backend", python: python, script: Self.script, arguments: ["--fixtures", fixtures.path, "--until-stdin-closes"])
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)/douyin/") else {
            process.terminate()
            end.waitHere()
            throw StartError(description: "the backend printed port \(port), which makes no URL")
        }
        self.port = port
        self.baseURL = baseURL
        child = OwnedChild(process, end: end)
        guard Self.accepts(port: port) else {
            stop()
            throw StartError(description: "the backend printed port \(port) but does not accept connections there")
        }
    }

    /// ``init(fixtures:)`` on a thread of its own (``onOwnThread(_:)``): the start waits for a
    /// Python process to print its port, which on a loaded two-core machine took seconds of a
    /// task-pool thread and stood the other tests still.
    public static func start(fixtures: URL = LocalBackend.fixtures.appendingPathComponent("api")) async throws -> LocalBackend {
        try await onOwnThread { try LocalBackend(fixtures: fixtures) }
    }

    deinit { stop() }

    /// The backend's process id while it runs (`nil` after ``stop()``), for tests of the harness.
    package var processIdentifier: Int32? {
        child.processIdentifier
    }

    /// Ends the backend process and waits for it; idempotent.
    public func stop() {
        child.stop()
    }

    /// `ws://127.0.0.1:PORT/douyin/groupchat`.
    public var groupChatURL: URL {
        URL(string: "ws://127.0.0.1:\(port)/douyin/groupchat") ?? baseURL
    }

    /// The requests received so far (the `/_debug/` ones left out), oldest first.
    public func requests() throws -> [Request] {
        try JSONDecoder().decode([Request].self, from: debug("GET", "requests"))
    }

    /// The requests to one API path such as `user` or `comment/post`.
    public func requests(to endpoint: String) throws -> [Request] {
        try requests().filter { $0.path == "/douyin/\(endpoint)" }
    }

    /// Forgets the recorded requests.
    public func clearRequests() throws {
        _ = try debug("DELETE", "requests")
    }

    /// Returns once at least `count` requests have been recorded (the backend gives up after 180 s).
    ///
    /// The blocking wait runs on a thread of its own (``onOwnThread(_:)``): on a task-pool or a
    /// global-queue thread it starved the very request it waited for when the suite ran in
    /// parallel.
    public func waitForRequests(_ count: Int) async throws {
        // 180 s, not 30: under Thread Sanitizer on two cores a request sent by a task can take
        // longer than 30 s to leave a loaded test process (three visitor tests got 408s).
        _ = try await onOwnThread { try self.debug("GET", "wait?count=\(count)&timeout=180") }
    }

    /// The next `count` requests (to paths starting with `path`, when given) get `status` with
    /// `body`, `contentType` and `headers` instead of their normal answer.
    public func respond(next count: Int = 1, status: Int, body: String = "", contentType: String = "application/json", headers: [String: String] = [:], path: String? = nil) throws {
        var entry: [String: Any] = ["count": count, "status": status, "body": body, "content_type": contentType, "headers": headers]
        if let path { entry["path"] = path }
        _ = try debug("POST", "enqueue", json: entry)
    }

    /// The next `count` requests fail with `status`, with a `Retry-After` header when given.
    public func fail(next count: Int = 1, status: Int, retryAfter: String? = nil) throws {
        try respond(next: count, status: status, body: "<html><body>\(status)</body></html>", contentType: "text/html", headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }

    /// The next `count` requests get an HTML page with status 200.
    public func answerHTML(next count: Int = 1) throws {
        try respond(next: count, status: 200, body: "<html><body>maintenance</body></html>", contentType: "text/html")
    }

    /// The next `count` requests wait `seconds` (or until ``reset()``) before their normal answer.
    public func stall(next count: Int = 1, seconds: Double) throws {
        _ = try debug("POST", "enqueue", json: ["count": count, "stall": seconds])
    }

    /// Every page says `has_more` 1, even past the end (the lying server).
    public func lieAboutHasMore(_ lie: Bool = true) throws {
        _ = try debug("POST", "config", json: ["lie_has_more": lie])
    }

    /// Each WebSocket connection opened from now on pauses `seconds` after the server's 101
    /// before the server reads from it; pushes still reach it meanwhile (0 ends the pauses).
    public func pauseAfterWebSocketUpgrade(seconds: Double) throws {
        _ = try debug("POST", "config", json: ["upgrade_pause": seconds])
    }

    /// Drops queued answers and config and releases every stalled request.
    public func reset() throws {
        _ = try debug("POST", "reset")
    }

    /// Sends `text` as a text frame to every WebSocket client; returns how many there were.
    @discardableResult
    public func push(_ text: String) throws -> Int {
        let answer = try debug("POST", "push", body: Data(text.utf8))
        return ((try? JSONSerialization.jsonObject(with: answer)) as? [String: Any])?["clients"] as? Int ?? 0
    }

    /// Closes every WebSocket connection from the server side.
    public func disconnectWebSockets() throws {
        _ = try debug("POST", "disconnect")
    }

    private func debug(_ method: String, _ path: String, json: [String: Any]) throws -> Data {
        try debug(method, path, body: try JSONSerialization.data(withJSONObject: json))
    }

    /// One `/_debug/` exchange through `loopbackExchange`; a status other
    /// than 200 throws with its status line.
    private func debug(_ method: String, _ path: String, body: Data = Data()) throws -> Data {
        guard let answer = loopbackExchange(port: port, "/_debug/\(path)", method: method, body: body) else {
            throw StartError(description: "the backend on port \(port) sent no HTTP answer (not running?)")
        }
        guard answer.status.hasPrefix("HTTP/1.1 200") || answer.status.hasPrefix("HTTP/1.0 200") else {
            throw StartError(description: "backend /_debug/\(path): \(answer.status)")
        }
        return answer.body
    }

    /// Whether something accepts on `127.0.0.1:port` now.
    private static func accepts(port: Int) -> Bool {
        guard let socketFD = connectLoopback(port: port) else { return false }
        close(socketFD)
        return true
    }
}
