import DouyinAPI
import DouyinSupport
import Foundation

/// What went wrong in DouyinChat: connecting, the WebSocket protocol, the server's messages.
public enum ChatError: Error, Sendable, Hashable {
    /// A request header the caller gave cannot be sent (a line break in a name or value); the
    /// text says which. Never retried.
    case invalidURL(String)
    /// The URL can never be opened: a scheme other than `ws`/`wss`, no host, a port outside
    /// 1-65535, or `wss://` on a transport without TLS; `reason` names the problem. Never retried.
    case unusableURL(url: String, reason: String)
    /// The server's TLS certificate did not verify against the trust anchors (the system store
    /// or the configured PEM): self-signed, another host's, expired, or from an untrusted CA.
    /// `reason` is the verifier's. No HTTP request was sent; never retried.
    case certificateRejected(host: String, reason: String)
    /// The TLS handshake failed for another reason than the certificate (no common protocol
    /// version or cipher, a reset mid-handshake …); OpenSSL's text. Retried with backoff.
    case tlsFailed(String)
    /// The host name did not resolve; `message` is the resolver's.
    case hostNotFound(host: String, message: String)
    /// The TCP connection failed; `errno` is the C error code (`ECONNREFUSED` …).
    case connectFailed(host: String, port: Int, errno: Int32)
    /// No answer in time; `stage` is `connect`, `handshake`, `read` or `write`.
    case timedOut(stage: String)
    /// The server answered the opening handshake with an HTTP status other than 101.
    case handshakeRejected(status: Int, reason: String)
    /// The server's 101 answer broke RFC 6455 §4.1 (missing upgrade, wrong `Sec-WebSocket-Accept`…).
    case handshakeInvalid(String)
    /// The server broke the protocol; the client closed with `closeCode` (1002, 1007 …).
    case protocolViolation(String, closeCode: WebSocketCloseCode)
    /// A message announced `size` bytes, more than `limit`: closed with 1009 before reading it.
    case messageTooBig(size: UInt64, limit: Int)
    /// The server closed the connection with this status code (1005 when it sent none).
    case closed(code: WebSocketCloseCode, reason: String)
    /// The connection dropped without a closing handshake; `errno` is 0 for a plain EOF.
    case connectionLost(errno: Int32)
    /// This transport cannot open WebSockets here (Debian 12's libcurl: error -1002).
    case unsupported(String)
    /// A ping got no pong in time: the connection is taken as dead.
    case pongTimeout
    /// A pushed message was not a `GroupChat`; `path` says where decoding stopped.
    case badMessage(path: String)
    /// The gap fill after a reconnect failed; the failure keeps the underlying error (the
    /// `DouyinAPI.APIError` of `groupchat/list`, or a custom ``ChatHistorySource``'s error).
    case gapFillFailed(GapFillFailure)

    /// Why the gap fill after a reconnect failed, with the error underneath.
    public enum GapFillFailure: Sendable, Hashable, CustomStringConvertible {
        /// `groupchat/list` failed: the API client's error as it threw it (server code, HTTP
        /// status, transport, decoding …).
        case api(APIError)
        /// The server did not answer and the API client answered from its offline fallback,
        /// which is not history (bundled messages would show as new ones): refused.
        /// `networkError` is the failure that made the client fall back; `nil` when it gave none.
        case offlineFallback(networkError: APIError?)
        /// A ``ChatHistorySource`` other than `APIClient` threw `error` (kept as thrown, so
        /// `error as? MyStoreError` recovers it).
        case source(any Error)

        /// One line a person can act on.
        public var description: String {
            switch self {
            case .api(let error): "\(error)"
            case .offlineFallback(let networkError?): "the server did not answer (\(networkError)) and the offline fallback is not history"
            case .offlineFallback(nil): "the server did not answer and the offline fallback is not history"
            case .source(let error): "the history source failed: \(error)"
            }
        }

        /// Equal when the cases and their errors are; two `source` errors are compared by type
        /// and `String(reflecting:)`, as `any Error` has no equality of its own.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.api(let left), .api(let right)): left == right
            case (.offlineFallback(let left), .offlineFallback(let right)): left == right
            case (.source(let left), .source(let right)): Self.identity(left) == Self.identity(right)
            default: false
            }
        }

        /// Hashes what `==` compares.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .api(let error):
                hasher.combine(0)
                hasher.combine(error)
            case .offlineFallback(let networkError):
                hasher.combine(1)
                hasher.combine(networkError)
            case .source(let error):
                hasher.combine(2)
                hasher.combine(Self.identity(error))
            }
        }

        private static func identity(_ error: any Error) -> String {
            "\(String(reflecting: type(of: error))): \(String(reflecting: error))"
        }
    }
}

extension ChatError: CustomStringConvertible {
    /// One line a person can act on.
    public var description: String {
        switch self {
        case .invalidURL(let why): "cannot send the request: \(why)"
        case .unusableURL(let url, let reason): "cannot open \(url): \(reason)"
        case .certificateRejected(let host, let reason): "the TLS certificate of \(host) did not verify: \(reason)"
        case .tlsFailed(let why): "TLS handshake failed: \(why)"
        case .hostNotFound(let host, let message): "cannot resolve \(host): \(message)"
        case .connectFailed(let host, let port, let code): "cannot connect to \(host):\(port): \(String(cString: strerror(code))) (errno \(code))"
        case .timedOut(let stage): "timed out during \(stage)"
        case .handshakeRejected(let status, let reason): "server refused the WebSocket upgrade: HTTP \(status) \(reason)"
        case .handshakeInvalid(let why): "invalid WebSocket handshake answer: \(why)"
        case .protocolViolation(let why, let code): "server broke the WebSocket protocol (closed with \(code)): \(why)"
        case .messageTooBig(let size, let limit): "message of \(size) bytes exceeds the \(limit)-byte limit (closed with 1009)"
        case .closed(let code, let reason): "server closed the connection with \(code)\(reason.isEmpty ? "" : ": \(reason)")"
        case .connectionLost(let code): code == 0 ? "connection dropped without a closing handshake" : "connection lost: \(String(cString: strerror(code))) (errno \(code))"
        case .unsupported(let why): "WebSocket transport unavailable: \(why)"
        case .pongTimeout: "no pong within the heartbeat timeout: connection dead"
        case .badMessage(let path): "pushed message is not a GroupChat (at \(path))"
        case .gapFillFailed(let failure): "could not fill the gap after reconnecting: \(failure)"
        }
    }
}

extension ChatError {
    /// `error` as a ``ChatError``: a socket failure becomes the case of the same name; any other
    /// error that is not already a ``ChatError`` counts as a lost connection.
    static func from(_ error: any Error) -> ChatError {
        if let chat = error as? ChatError { return chat }
        switch error as? ClientSocketError {
        case .hostNotFound(let host, let message)?: return .hostNotFound(host: host, message: message)
        case .connectFailed(let host, let port, let code)?: return .connectFailed(host: host, port: port, errno: code)
        case .timedOut(let stage)?: return .timedOut(stage: stage)
        case .connectionLost(let code)?: return .connectionLost(errno: code)
        case nil: return .connectionLost(errno: 0)
        }
    }
}
