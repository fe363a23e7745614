import DouyinLogging
import Foundation

extension VideoProxyServer {
    /// Limits and deadlines; the defaults suit one app's player on one device.
    public struct Configuration: Sendable {
        /// The port to listen on; 0 (the default) lets the OS pick a free one.
        public var port: Int = 0
        /// The most connections open at once. Default 1,024: what a thousand idle connections
        /// cost is measured by `douyinkit-bench proxy-idle` (BENCHMARKS.md).
        /// Past it the connection idle for the longest — silent since it was accepted, or
        /// waiting between requests — is closed to make room: cleanly (a FIN, no request of
        /// its in flight; HTTP/1.1 lets a server close an idle connection at any time, RFC
        /// 9112 §9.5, and a client retries on a new one), so idle sockets can never lock a
        /// player out. When none is idle (every connection is answering a request), the
        /// newcomer is refused politely: `503 Service Unavailable` with `Retry-After: 1` and
        /// `Connection: close` (``Statistics/refusedConnections``).
        public var maxConnections: Int = 1024
        /// How long a connection may stay silent before it is closed: from its accept to the
        /// first byte of its first request, and from the end of each answer to the first byte
        /// of the next. Default 30 s.
        public var idleTimeout: Duration = .seconds(30)
        /// How long a request head may take from its first byte to its blank line (a
        /// slowloris client trickles it forever). Default 10 s.
        public var headTimeout: Duration = .seconds(10)
        /// How long one write may wait for a client that stopped reading. Default 30 s.
        public var writeTimeout: Duration = .seconds(30)
        /// Bytes: the largest request head accepted; longer ones get 431. Default 16,384.
        public var maxHeadBytes: Int = 16_384
        /// Where the server tells its ``Event``s as log lines: start and stop, each refused
        /// request with why (token, Host, scheme, method, malformed head), each origin failure
        /// passed to the player, the connection cap reached, and every answered request at
        /// `debug`. The token never appears in them. `nil` by default: nothing is logged (the
        /// ``VideoProxyServer/events()`` stream is unaffected either way).
        public var log: LogHandler?
        /// Whether checked bytes of an unchanged data file may go out by `sendfile(2)`
        /// (``Statistics/bytesSentFromFile``); `true` by default. Off, every byte is read into
        /// memory and written (the path before issue 37): for the bench's before-and-after.
        package var sendsFromFile = true

        /// The default configuration.
        public init() {}
    }

    /// Counts since the server was made, for logs and tests.
    public struct Statistics: Sendable, Hashable {
        /// Requests answered, refused ones included.
        public var requests: Int = 0
        /// Requests answered 4xx by the proxy itself (token, Host, scheme, method, malformed).
        public var refusedRequests: Int = 0
        /// Times the server stopped accepting until a connection ended or went idle because
        /// the process ran out of file descriptors with none idle; new connections wait in the
        /// listen queue meanwhile. 0 while descriptors never ran out.
        public var connectionWaits: Int = 0
        /// Connections refused past the cap (``Configuration/maxConnections``) with none idle
        /// to close: each answered `503 Service Unavailable` with `Retry-After: 1` and
        /// `Connection: close` (or, past 64 such refusals at once, closed unanswered). 0 while
        /// the cap was never reached with every connection busy.
        public var refusedConnections: Int = 0
        /// Body bytes sent to clients.
        public var bytesServed: Int64 = 0
        /// Of ``bytesServed``, those the cache held when their request arrived.
        public var bytesFromCache: Int64 = 0
        /// Of ``bytesServed``, those fetched from the origin for their request.
        public var bytesFromOrigin: Int64 = 0
        /// Of ``bytesServed``, those sent straight from the cache's data file with `sendfile(2)`,
        /// never read into memory: blocks checked against their checksums while the file has
        /// been unchanged since (same inode, size and change time). 0 where `sendfile` is not
        /// available (Apple platforms), which copy every byte.
        public var bytesSentFromFile: Int64 = 0
        /// Connections open now.
        public var openConnections: Int = 0
    }

    /// Something that happened on the server, for an app's logs.
    public enum Event: Sendable {
        /// Listening; the URL is the prefix of every player URL.
        case started(URL)
        /// A request was answered.
        case request(RequestRecord)
        /// Stopped; every connection has ended.
        case stopped
        /// The connection cap (``Configuration/maxConnections``) was reached with no
        /// connection idle: new connections are answered 503 until one of the
        /// `openConnections` ends or goes idle (told once per such streak); or the process's
        /// descriptors ran out, and new connections wait in the listen queue.
        case full(openConnections: Int)
    }

    /// One answered request.
    public struct RequestRecord: Sendable {
        /// `GET`, `HEAD`, or what the client sent.
        public var method: String
        /// The origin URL it named; `nil` when the request was refused before that was known.
        public var origin: URL?
        /// The status sent.
        public var status: Int
        /// Body bytes sent (fewer than promised when the client or the origin went away).
        public var bodyBytes: Int64
        /// Why the answer is an error or was cut short; `nil` for a complete answer.
        public var error: VideoCacheError?
        /// The proxy's own reason for a refusal (403, 400 …); `nil` otherwise.
        public var refusal: String?
    }
}
