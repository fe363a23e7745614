import Foundation

/// A message received over a WebSocket.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (valid UTF-8).
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// Opens WebSocket connections: the package's own RFC 6455 client (``POSIXWebSocketTransport``)
/// or `URLSessionWebSocketTask` (``URLSessionWebSocketTransport``).
public protocol WebSocketTransport: Sendable {
    /// Opens a connection to `url` sending `headers` with the opening handshake; returns once
    /// the handshake succeeded. Throws ``ChatError``.
    func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection
}

/// One open WebSocket connection.
public protocol WebSocketConnection: AnyObject, Sendable {
    /// The messages as they arrive; single consumer. Ends without error after ``close(code:reason:)``,
    /// with ``ChatError/closed(code:reason:)`` when the server closed, or another ``ChatError``.
    var messages: AsyncThrowingStream<WebSocketMessage, any Error> { get }
    /// Sends a text message.
    func send(text: String) async throws
    /// Sends `message` as it is: text as a text message, binary as a binary one.
    func send(_ message: WebSocketMessage) async throws
    /// Sends a ping and returns when its pong arrives (no timeout here: the caller bounds it).
    func ping() async throws
    /// Starts the closing handshake with `code` (1000 normal) and releases the connection;
    /// idempotent.
    func close(code: WebSocketCloseCode, reason: String) async
}

extension WebSocketConnection {
    /// Sends a text message through ``send(text:)``; a transport that cannot send binary throws
    /// ``ChatError/unsupported(_:)`` for one. The package's transports implement both.
    public func send(_ message: WebSocketMessage) async throws {
        switch message {
        case .text(let text): try await send(text: text)
        case .binary: throw ChatError.unsupported("this connection cannot send binary messages")
        }
    }
}

/// Which transport runs where.
public enum WebSocketTransports {
    /// `URLSessionWebSocketTask` on Apple platforms; the package's own RFC 6455 client on Linux,
    /// whose FoundationNetworking needs a libcurl built with WebSocket support (Debian 12's
    /// 7.88 answers -1002 "WebSockets not supported by libcurl").
    public static var platformDefault: any WebSocketTransport {
        #if canImport(Darwin)
        URLSessionWebSocketTransport()
        #else
        POSIXWebSocketTransport()
        #endif
    }
}
