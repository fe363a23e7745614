import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP/1.1 server whose every answer a test writes byte for byte: the origin that
/// lies (a 206 with more body than its Content-Range, a total length that changes under the
/// same strong ETag, a weak ETag kept while Last-Modified changes, a 200 to an If-Range
/// request) — what no real nginx does on demand. Each connection gets one answer, then the
/// server closes it (`Connection: close`), so a body without Content-Length ends there.
public final class ScriptedHTTPServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable, Hashable {
        /// `GET`, `HEAD` …
        public let method: String
        /// The request target (`/v.mp4`).
        public let target: String
        /// The header fields, names lowercased.
        public let headers: [String: String]
        /// The `Range` header, if any.
        public var range: String? { headers["range"] }
        /// The `If-Range` header, if any.
        public var ifRange: String? { headers["if-range"] }

        /// The first byte and the inclusive last byte of a `bytes=a-b` Range; `nil` without one.
        public var byteRange: ClosedRange<Int>? {
            guard let range, range.hasPrefix("bytes=") else { return nil }
            let parts = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let first = Int(parts[0]) else { return nil }
            let last = Int(parts[1]) ?? Int.max
            return first...max(first, last)
        }
    }

    /// An answer: status, header fields in order (no `Connection`: the server adds `close`),
    /// and the body exactly as sent.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Header fields, written in this order.
        public var headers: [(String, String)]
        /// The body bytes, all written whatever the headers say.
        public var body: Data

        /// An answer from its parts.
        public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A 206 carrying `file[range]` with an honest `Content-Range` and `Content-Length`
        /// (clipped to the file), plus `headers`.
        public static func partial(_ file: Data, _ range: ClosedRange<Int>, headers: [(String, String)] = []) -> Response {
            let last = min(range.upperBound, file.count - 1)
            let body = file[range.lowerBound...last]
            return Response(status: 206, headers: headers + [("Content-Range", "bytes \(range.lowerBound)-\(last)/\(file.count)"),
                                                             ("Content-Length", String(body.count))], body: Data(body))
        }

        /// A 200 carrying all of `file` with its `Content-Length`, plus `headers`.
        public static func whole(_ file: Data, headers: [(String, String)] = []) -> Response {
            Response(status: 200, headers: headers + [("Content-Length", String(file.count))], body: file)
        }
    }

    /// The port it listens on (127.0.0.1 only).
    public let port: Int
    private let listener: Int32
    private let stopped = LockedBox(false)
    private let log = LockedBox<[Request]>([])

    /// Starts listening; `respond` gets each request and its number (0 for the first) and
    /// returns the answer. Called on the server's own threads.
    public init(_ respond: @escaping @Sendable (_ request: Request, _ number: Int) -> Response) throws {
        (listener, port) = try Self.listenOnLoopback()
        let thread = Thread { [listener, log, stopped] in
            // This thread owns the descriptor: it closes it once stopped, never before, so a
            // stop can never shut down a number the kernel gave to someone else.
            defer { close(listener) }
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if stopped.withLock({ $0 }) { return }
                    continue
                }
                Thread.detachNewThread {
                    Self.serve(connection, log: log, respond: respond)
                }
            }
        }
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT<path>`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The requests so far, in arrival order.
    public func requests() -> [Request] { log.withLock { $0 } }

    /// Stops accepting (connections being answered finish). Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private static func serve(_ connection: Int32, log: LockedBox<[Request]>, respond: @Sendable (Request, Int) -> Response) {
        defer { close(connection) }
        var head = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            head.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
        let number = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        let response = respond(request, number)
        var out = "HTTP/1.1 \(response.status) Scripted\r\n"
        for (name, value) in response.headers { out += "\(name): \(value)\r\n" }
        out += "Connection: close\r\n\r\n"
        var bytes = Data(out.utf8)
        if request.method != "HEAD" { bytes.append(response.body) }
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                // MSG_NOSIGNAL: a client that hung up must not kill the test process with SIGPIPE.
                let count = send(connection, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                sent += count
            }
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    /// A socket listening on a free loopback port.
    static func listenOnLoopback() throws -> (Int32, Int) {
        try bindLoopback(listenBacklog: 64)
    }
}

/// A loopback port with a socket listening on it that never accepts: a client that connects
/// completes the handshake and waits in the queue, where ``connectionAttempts()`` counts it.
/// A test that must prove "no connection was made" points a URL here.
public final class SilentListener: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Int32

    /// Listens on a free loopback port.
    public init() throws {
        (descriptor, port) = try ScriptedHTTPServer.listenOnLoopback()
    }

    deinit { close(descriptor) }

    /// How many connections reached the port so far (each is taken off the queue and closed).
    public func connectionAttempts() -> Int {
        var count = 0
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) > 0 {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { break }
            close(connection)
            count += 1
        }
        return count
    }
}
