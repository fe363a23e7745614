import Foundation

extension VideoProxyServer {
    /// Limits and deadlines; the defaults suit one app's player on one device.
    public struct Configuration: Sendable {
        /// The port to listen on; 0 (the default) lets the OS pick a free one.
        public var port: Int = 0
        /// The most connections open at once. Default 256. Past it the connection idle for
        /// the longest (waiting for a request) is closed; when none is idle the new one is.
        public var maxConnections: Int = 256
        /// How long a connection may wait for the first byte of its next request before it is
        /// closed. Default 30 s.
        public var idleTimeout: Duration = .seconds(30)
        /// How long a request head may take from its first byte to its blank line (a
        /// slowloris client trickles it forever). Default 10 s.
        public var headTimeout: Duration = .seconds(10)
        /// How long one write may wait for a client that stopped reading. Default 30 s.
        public var writeTimeout: Duration = .seconds(30)
        /// Bytes: the largest request head accepted; longer ones get 431. Default 16,384.
        public var maxHeadBytes: Int = 16_384

        /// The default configuration.
        public init() {}
    }

    /// Counts since the server was made, for logs and tests.
    public struct Statistics: Sendable, Hashable {
        /// Requests answered, refused ones included.
        public var requests: Int = 0
        /// Requests answered 4xx by the proxy itself (token, Host, scheme, method, malformed).
        public var refusedRequests: Int = 0
        /// Connections closed at once because the connection cap was reached and none was idle.
        public var refusedConnections: Int = 0
        /// Body bytes sent to clients.
        public var bytesServed: Int64 = 0
        /// Of ``bytesServed``, those the cache held when their request arrived.
        public var bytesFromCache: Int64 = 0
        /// Of ``bytesServed``, those fetched from the origin for their request.
        public var bytesFromOrigin: Int64 = 0
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

/// The server's open connections and which of them wait idle, for the connection cap.
struct ConnectionTable {
    private struct Slot {
        var task: Task<Void, Never>?
        var waitingSince: ContinuousClock.Instant?
    }

    private var slots: [Int: Slot] = [:]
    private var nextID = 0

    /// Connections open.
    var count: Int { slots.count }

    /// A slot for a newly accepted connection, waiting for its first request.
    mutating func reserve() -> Int {
        nextID += 1
        slots[nextID] = Slot(task: nil, waitingSince: .now)
        return nextID
    }

    /// Records the task serving `id`; `false` when the slot is already gone (evicted or ended).
    mutating func attach(_ task: Task<Void, Never>, to id: Int) -> Bool {
        guard slots[id] != nil else { return false }
        slots[id]?.task = task
        return true
    }

    /// Marks `id` as waiting for a request (`true`) or busy answering one.
    mutating func setWaiting(_ id: Int, _ waiting: Bool) {
        guard var slot = slots[id] else { return }
        slot.waitingSince = waiting ? (slot.waitingSince ?? .now) : nil
        slots[id] = slot
    }

    /// Forgets `id`.
    mutating func remove(_ id: Int) {
        slots[id] = nil
    }

    /// The task of the connection waiting longest for a request, removed from the table (so
    /// the count drops at once and it is not chosen twice) for the caller to cancel; `nil`
    /// when none waits.
    mutating func evictOldestIdle() -> Task<Void, Never>? {
        guard let (id, slot) = slots.filter({ $0.value.task != nil && $0.value.waitingSince != nil })
            .min(by: { $0.value.waitingSince! < $1.value.waitingSince! }) else { return nil }
        slots[id] = nil
        return slot.task
    }

    /// Every connection's task.
    func allTasks() -> [Task<Void, Never>] {
        slots.values.compactMap(\.task)
    }
}
