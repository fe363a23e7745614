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
/// protocol gets a close frame with the matching code (1002, 1007, 1009), then the TCP
/// connection is closed at once (RFC 6455 §7.1.7; only a normal close waits up to
/// ``Configuration/closeTimeout`` for the server's), and the stream ends with a ``ChatError``. `wss://` runs over OpenSSL where the build has it (Linux: TLS 1.2+, SNI,
/// chain and host-name verification against the system store or
/// ``Configuration/trustedCertificates``); elsewhere `wss://` is refused as unusable.
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
        /// PEM text of the certificates `wss://` trusts (CA or server certificates, one or
        /// more); `nil` (the default) trusts the system's store (OpenSSL's default paths).
        public var trustedCertificates: Data?
        /// Offer permessage-deflate (RFC 7692) and compress what is sent when the server accepts.
        /// `true` by default; builds without zlib (other than Linux) never offer it.
        public var compression: Bool

        /// A configuration; every argument has the documented default.
        public init(maximumMessageSize: Int = 16 << 20, connectTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(10),
                    readTimeout: Duration? = nil, writeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2),
                    trustedCertificates: Data? = nil, compression: Bool = true) {
            self.maximumMessageSize = maximumMessageSize
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.readTimeout = readTimeout
            self.writeTimeout = writeTimeout
            self.closeTimeout = closeTimeout
            self.trustedCertificates = trustedCertificates
            self.compression = compression
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
        let endpoint = try WebSocketEndpoint(url)
        #if !canImport(COpenSSL)
        guard !endpoint.secure else {
            throw ChatError.unusableURL(url: url.absoluteString, reason: "wss:// needs OpenSSL, which this platform's build lacks (use URLSessionWebSocketTransport)")
        }
        #endif
        let (host, port, target) = (endpoint.host, endpoint.port, endpoint.target)
        let configuration = configuration
        do {
            return try await onNewThread(named: "DouyinChat.connect") { () throws -> any WebSocketConnection in
                let socket = try POSIXSocket.connect(host: host, port: port, timeout: configuration.connectTimeout)
                var stream: any ByteStream = socket
                do {
                    socket.setSendTimeout(configuration.writeTimeout)
                    if endpoint.secure { stream = try Self.secure(socket, host: host, configuration: configuration) }
                    let (leftover, deflate) = try Handshake.perform(on: stream, host: endpoint.hostHeader, target: target, headers: headers,
                                                                    offerDeflate: configuration.compression && Handshake.canDeflate,
                                                                    timeout: configuration.handshakeTimeout)
                    return POSIXWebSocketConnection(socket: stream, leftover: leftover, configuration: configuration, deflate: deflate)
                } catch {
                    stream.closeDescriptor()
                    throw error
                }
            }
        } catch {
            throw ChatError.from(error)
        }
    }
}

extension POSIXWebSocketTransport {
    /// TLS over `socket` (Linux: OpenSSL), within the handshake timeout.
    static func secure(_ socket: POSIXSocket, host: String, configuration: Configuration) throws -> any ByteStream {
        #if canImport(COpenSSL)
        try TLSStream.connect(socket: socket, host: host, trustedPEM: configuration.trustedCertificates,
                              timeout: configuration.handshakeTimeout, writeTimeout: configuration.writeTimeout)
        #else
        throw ChatError.unusableURL(url: "wss://\(host)", reason: "wss:// needs OpenSSL, which this platform's build lacks")
        #endif
    }
}

/// The opening handshake (RFC 6455 §4.1); ``HandshakeAnswer`` checks the server's answer.
package enum Handshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` a server must answer for `key`.
    package static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Whether this build can compress (zlib is linked on Linux only).
    static var canDeflate: Bool {
        #if canImport(CZlib)
        true
        #else
        false
        #endif
    }

    /// Sends the upgrade request, checks the answer and returns any bytes read past it, with
    /// the permessage-deflate parameters the server accepted (`nil`: none, or not offered).
    static func perform(on socket: any ByteStream, host: String, target: String, headers: [String: String], offerDeflate: Bool,
                        timeout: Duration) throws -> (leftover: [UInt8], deflate: DeflateNegotiation?) {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if offerDeflate { request += "Sec-WebSocket-Extensions: \(DeflateNegotiation.offer)\r\n" }
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
        _ = try answer.validate(key: key, protocols: HandshakeAnswer.offeredProtocols(in: headers), offeredDeflate: offerDeflate)
        var deflate: DeflateNegotiation?
        if offerDeflate { deflate = try answer.deflate }
        return (Array(received[(end + 4)...]), deflate)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}
