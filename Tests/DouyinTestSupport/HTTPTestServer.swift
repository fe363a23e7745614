import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP/1.1 server for the transport contract tests, in the test process: each
/// request, body and all, goes to a handler that answers it at its own pace on the
/// connection's thread — whole, head first then a body in pieces, an endless body, or held
/// until a ``ServerGate`` opens.
///
/// Why in process and not a script: the tests await what the server saw (``arrivals``: a
/// request read whole; ``departures``: a client that closed its end) instead of sleeping, and
/// a held answer is released by the test itself. One exchange a connection
/// (`Connection: close`), so a departure is the transport letting the connection go.
public final class HTTPTestServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        /// `GET`, `POST` …
        public let method: String
        /// The request target (`/echo`).
        public let target: String
        /// The header fields in order.
        package let headers: HTTPHeaders
        /// The body (Content-Length or chunked), empty without one.
        public let body: Data
    }

    /// One connection's exchange, handed to the handler on the connection's own thread.
    public final class Exchange: @unchecked Sendable {
        // @unchecked Sendable: used by the connection's thread only (the handler runs there).

        /// The request.
        public let request: Request
        /// The request's number on this server, 0 for the first.
        public let number: Int
        fileprivate let connection: Int32
        fileprivate let stopped: ServerGate
        /// Body bytes written so far by ``sendBody(_:)`` and ``sendEndlessBody(chunk:)``.
        public private(set) var bodyBytesSent = 0

        fileprivate init(request: Request, number: Int, connection: Int32, stopped: ServerGate) {
            self.request = request
            self.number = number
            self.connection = connection
            self.stopped = stopped
        }

        /// Writes a whole answer: `status`, `headers`, a `Content-Length` (unless `headers`
        /// has one, or `chunked`), `Connection: close`, then `body` (not for HEAD).
        public func respond(_ status: Int, headers: [(String, String)] = [], body: Data = Data()) {
            var all = headers
            if !all.contains(where: { $0.0.lowercased() == "content-length" }) { all.append(("Content-Length", String(body.count))) }
            sendHead(status, headers: all)
            if request.method != "HEAD" { _ = sendBody(body) }
        }

        /// Writes the status line and `headers`, plus `Connection: close`.
        public func sendHead(_ status: Int, headers: [(String, String)] = []) {
            var text = "HTTP/1.1 \(status) Test\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Connection: close\r\n\r\n"
            _ = write(Data(text.utf8))
        }

        /// Writes body bytes; `false` once the client has gone (or the server stopped).
        @discardableResult
        public func sendBody(_ data: Data) -> Bool {
            guard write(data) else { return false }
            bodyBytesSent += data.count
            return true
        }

        /// Writes `chunk` again and again until the client goes (or the server stops): an
        /// endless body (send the head without a length first). Blocks while the client does
        /// not read, as a real server does.
        public func sendEndlessBody(chunk: Data = Data(repeating: 0x61, count: 16 * 1024)) {
            while sendBody(chunk) {}
        }

        /// Writes `chunk` until `bytes` are sent or the client goes (or the server stops): a
        /// body that ends (send the head without a length first). For a client that cannot
        /// pause, such as URLSession on Linux: an endless body kept the process-wide queue all
        /// its sessions share busy for as long as the test ran.
        public func sendBody(repeating chunk: Data = Data(repeating: 0x61, count: 16 * 1024), upTo bytes: Int) {
            var sent = 0
            while sent < bytes, sendBody(chunk) { sent += chunk.count }
        }

        /// Waits until `gate` opens (`true`) or the client leaves or the server stops
        /// (`false`), without reading anything the client may still send.
        @discardableResult
        public func hold(until gate: ServerGate) -> Bool {
            while true {
                var fds = [pollfd(fd: connection, events: pollReadHangUp | Int16(POLLIN), revents: 0),
                           pollfd(fd: gate.descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&fds, 3, -1)
                if ready < 0 { if errno == EINTR { continue } else { return false } }
                if fds[1].revents != 0 { return true }
                if fds[2].revents != 0 || clientLeft(fds[0].revents) { return false }
            }
        }

        /// Whether the client closed its end, given its poll events; bytes it sent meanwhile
        /// are read and dropped.
        private func clientLeft(_ events: Int16) -> Bool {
            if events & (pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 { return true }
            guard events & Int16(POLLIN) != 0 else { return false }
            var scratch = [UInt8](repeating: 0, count: 4096)
            let count = recv(connection, &scratch, scratch.count, 0)
            return count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN)
        }

        /// Writes all of `data`, waiting while the client's window is full; `false` once the
        /// client has gone or the server stopped.
        private func write(_ data: Data) -> Bool {
            data.withUnsafeBytes { raw -> Bool in
                var sent = 0
                while sent < raw.count {
                    var fds = [pollfd(fd: connection, events: Int16(POLLOUT), revents: 0),
                               pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0)]
                    let ready = poll(&fds, 2, -1)
                    if ready < 0 { if errno == EINTR { continue } else { return false } }
                    if fds[1].revents != 0 { return false }
                    if fds[0].revents & (Int16(POLLERR) | Int16(POLLHUP)) != 0 { return false }
                    // MSG_NOSIGNAL: a client that hung up must not kill the test process with SIGPIPE.
                    let count = send(connection, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                    if count < 0 {
                        if errno == EINTR || errno == EAGAIN { continue }
                        return false
                    }
                    sent += count
                }
                return true
            }
        }
    }

    /// The port it listens on (127.0.0.1 only).
    public let port: Int
    /// Requests read whole (head and body), before the handler runs.
    public let arrivals = EventCount()
    /// Connections the client closed (or that ended: reset, server stopped) after their
    /// handler returned.
    public let departures = EventCount()
    private let listener: Int32
    private let stopped = ServerGate()
    private let log = LockedBox<[Request]>([])

    /// Starts listening; `handler` answers each request on the connection's own thread.
    public init(_ handler: @escaping @Sendable (Exchange) -> Void) throws {
        (listener, port) = try bindLoopback(listenBacklog: 64)
        let thread = Thread { [listener, log, stopped, arrivals, departures] in
            // This thread owns the descriptor: it closes it once stopped, never before.
            defer { close(listener) }
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if stopped.isOpen { return }
                    continue
                }
                Thread.detachNewThread {
                    Self.serve(connection, log: log, stopped: stopped, arrivals: arrivals, departures: departures, handler: handler)
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

    /// Stops accepting and ends every held or endless answer. Idempotent.
    public func stop() {
        if !stopped.isOpen {
            stopped.open()
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }

    private static func serve(_ connection: Int32, log: LockedBox<[Request]>, stopped: ServerGate, arrivals: EventCount,
                              departures: EventCount, handler: @Sendable (Exchange) -> Void) {
        defer {
            close(connection)
            departures.increment()
        }
        var reader = Reader(connection: connection)
        guard let request = reader.request() else { return }
        let number = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        arrivals.increment()
        let exchange = Exchange(request: request, number: number, connection: connection, stopped: stopped)
        handler(exchange)
        // The answer is whole: say so, and wait for the client to close its end.
        shutdown(connection, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0, errno == EINTR { continue }
            if fds[1].revents != 0 { return }
            let count = recv(connection, &scratch, scratch.count, 0)
            if count == 0 || (count < 0 && errno != EINTR) { return }
        }
    }

    /// Reads one request from a connection: the head, then a body by Content-Length or chunked.
    private struct Reader {
        let connection: Int32
        var buffered = Data()

        init(connection: Int32) { self.connection = connection }

        /// More bytes, or `false` at the end of the stream.
        mutating func fill() -> Bool {
            var scratch = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(connection, &scratch, scratch.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffered.append(contentsOf: scratch[0..<count])
                return true
            }
        }

        /// Takes everything up to and including `separator`.
        mutating func take(through separator: Data) -> Data? {
            while true {
                if let range = buffered.range(of: separator) {
                    let taken = Data(buffered[buffered.startIndex..<range.upperBound])
                    buffered = Data(buffered[range.upperBound...])
                    return taken
                }
                guard fill() else { return nil }
            }
        }

        mutating func take(count: Int) -> Data? {
            while buffered.count < count { guard fill() else { return nil } }
            let taken = Data(buffered.prefix(count))
            buffered = Data(buffered.dropFirst(count))
            return taken
        }

        /// Tells a client that waits with `Expect: 100-continue` to send its body.
        func writeContinue() {
            let text = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            _ = send(connection, text, text.count, Int32(MSG_NOSIGNAL))
        }

        mutating func request() -> Request? {
            guard let head = take(through: Data("\r\n\r\n".utf8)) else { return nil }
            let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
            let requestLine = lines[0].split(separator: " ")
            guard requestLine.count >= 2 else { return nil }
            var headers = HTTPHeaders()
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            if headers["Expect"]?.lowercased() == "100-continue" { writeContinue() }
            var body = Data()
            if let length = headers["Content-Length"].flatMap({ Int($0) }) {
                guard let bytes = take(count: length) else { return nil }
                body = bytes
            } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
                while true {
                    guard let sizeLine = take(through: Data("\r\n".utf8)),
                          let size = Int(String(decoding: sizeLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                                            .split(separator: ";").first ?? "", radix: 16) else { return nil }
                    guard let chunk = take(count: size + 2) else { return nil }
                    if size == 0 { break }
                    body.append(chunk.prefix(size))
                }
            }
            return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
        }
    }
}

/// POLLRDHUP (Linux: the peer shut down its writing side), which Glibc's module does not
/// export (it needs `_GNU_SOURCE`); Darwin has no such event, and sees the end as readable EOF.
#if os(Linux)
private let pollReadHangUp: Int16 = 0x2000
#else
private let pollReadHangUp: Int16 = 0
#endif

/// A gate a held answer waits on (``HTTPTestServer/Exchange/hold(until:)``) until the test
/// opens it: a pipe, so a thread waits in `poll(2)` beside its connection and sees either.
public final class ServerGate: Sendable {
    private let pipeEnds: (read: Int32, write: Int32)
    private let opened = LockedBox(false)

    /// A closed gate.
    public init() {
        var ends: [Int32] = [0, 0]
        _ = pipe(&ends)
        pipeEnds = (ends[0], ends[1])
    }

    deinit {
        close(pipeEnds.read)
        close(pipeEnds.write)
    }

    /// The descriptor that turns readable once the gate is open.
    var descriptor: Int32 { pipeEnds.read }

    /// Whether ``open()`` was called.
    public var isOpen: Bool { opened.withLock { $0 } }

    /// Opens the gate for every waiter, now and later. Idempotent.
    public func open() {
        let first = opened.withLock { opened in
            defer { opened = true }
            return !opened
        }
        // One byte never read: the pipe stays readable for every later poll.
        if first { _ = write(pipeEnds.write, [UInt8(1)], 1) }
    }
}
