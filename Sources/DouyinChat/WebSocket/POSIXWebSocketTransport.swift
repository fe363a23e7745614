import DouyinSupport
import Foundation

/// The package's own RFC 6455 client for `ws://` URLs over POSIX sockets: the transport on
/// Linux, where FoundationNetworking's `URLSessionWebSocketTask` needs a libcurl with WebSocket
/// support (Debian 12's has none).
///
/// What it does: the opening handshake with the answer checked by RFC 6455 §4.1 (status 101,
/// `Upgrade` and `Connection` ignoring case, `Sec-WebSocket-Accept` exact, no extension and no
/// subprotocol the request did not offer), masked client frames, 7/16/64-bit lengths, fragmented messages reassembled, pings answered, the closing
/// handshake with status codes, text checked as UTF-8, a message size limit enforced before the
/// message is allocated, connect/handshake/read/write timeouts. A server that breaks the
/// protocol gets a close frame with the matching code (1002, 1007, 1009) and the stream ends
/// with a ``ChatError``. No TLS (`wss://`): use ``URLSessionWebSocketTransport`` for that.
public struct POSIXWebSocketTransport: WebSocketTransport {
    /// Limits and timeouts of the client.
    public struct Configuration: Sendable, Hashable {
        /// Largest message accepted, in bytes; a larger one is refused with close code 1009
        /// before its payload is read. 16 MiB by default.
        public var maximumMessageSize: Int
        /// How long the TCP connect may take. 10 s by default.
        public var connectTimeout: Duration
        /// How long the server may take to answer the opening handshake. 10 s by default.
        public var handshakeTimeout: Duration
        /// How long the connection may stay silent before it counts as lost; `nil` (the
        /// default) waits forever (``ChatConnection``'s heartbeat finds dead connections).
        public var readTimeout: Duration?
        /// How long one write may block on a server that stops reading. 10 s by default.
        public var writeTimeout: Duration
        /// How long ``WebSocketConnection/close(code:reason:)`` waits for the server's close
        /// frame before dropping the connection. 2 s by default.
        public var closeTimeout: Duration

        /// A configuration; every argument has the documented default.
        public init(maximumMessageSize: Int = 16 << 20, connectTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(10),
                    readTimeout: Duration? = nil, writeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2)) {
            self.maximumMessageSize = maximumMessageSize
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.readTimeout = readTimeout
            self.writeTimeout = writeTimeout
            self.closeTimeout = closeTimeout
        }
    }

    /// The client's limits and timeouts.
    public var configuration: Configuration

    /// A client with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Connects and performs the opening handshake on a thread of its own (the socket calls
    /// block), returning the open connection.
    public func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
        guard url.scheme?.lowercased() == "ws", let host = url.host, !host.isEmpty else { throw ChatError.invalidURL(url.absoluteString) }
        let port = url.port ?? 80
        let path = url.path.isEmpty ? "/" : url.path
        let target = url.query.map { path + "?" + $0 } ?? path
        let configuration = configuration
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let socket = try POSIXSocket.connect(host: host, port: port, timeout: configuration.connectTimeout)
                    do {
                        socket.setSendTimeout(configuration.writeTimeout)
                        let leftover = try Handshake.perform(on: socket, host: host, port: port, target: target, headers: headers,
                                                             timeout: configuration.handshakeTimeout)
                        continuation.resume(returning: POSIXWebSocketConnection(socket: socket, leftover: leftover, configuration: configuration))
                    } catch {
                        socket.closeDescriptor()
                        throw error
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "DouyinChat.connect"
            thread.start()
        }
    }
}

/// The opening handshake (RFC 6455 §4.1); ``HandshakeAnswer`` checks the server's answer.
package enum Handshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` a server must answer for `key`.
    package static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Sends the upgrade request, checks the answer and returns any bytes read past it.
    static func perform(on socket: POSIXSocket, host: String, port: Int, target: String, headers: [String: String], timeout: Duration) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            // A header value with a line break would smuggle headers: refuse it.
            guard !name.contains(where: \.isNewline), !value.contains(where: \.isNewline) else { throw ChatError.invalidURL("header \(name) holds a line break") }
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try socket.sendAll(Array(request.utf8))

        // Read until the blank line; 16 KiB of headers at most.
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        while headerEnd == nil {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw ChatError.timedOut(stage: "handshake") }
            let count = try chunk.withUnsafeMutableBytes { try socket.receive(into: $0, timeout: remaining, stage: "handshake") }
            if count == 0 { throw ChatError.handshakeInvalid("the server closed the connection before answering") }
            received += chunk[0..<count]
            headerEnd = find([13, 10, 13, 10], in: received)
            if headerEnd == nil, received.count > 16 << 10 { throw ChatError.handshakeInvalid("answer headers longer than 16 KiB") }
        }
        let end = headerEnd!
        let answer = try HandshakeAnswer(head: String(decoding: received[0..<end], as: UTF8.self))
        _ = try answer.validate(key: key, protocols: HandshakeAnswer.offeredProtocols(in: headers))
        return Array(received[(end + 4)...])
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}
