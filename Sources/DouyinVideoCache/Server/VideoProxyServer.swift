import DouyinSupport
import Foundation

/// A local HTTP/1.1 proxy over a ``VideoCache`` that any player can use: it hands out
/// `http://127.0.0.1:<port>/<token>/<origin URL>` addresses, serves what the cache holds and
/// fetches only what is missing, once however many clients want it.
///
/// ```swift
/// let server = VideoProxyServer(cache: cache)
/// try server.start()
/// player.play(server.url(for: videoURL)!)   // AVPlayer, ExoPlayer, ffmpeg, mpv
/// await server.stop()
/// ```
///
/// Only its own player gets in: a random token per start in every path, the `Host` field
/// checked against `127.0.0.1:<port>` / `localhost:<port>` (a web page reaching the port by
/// DNS rebinding names its own host), http(s) origins only; a refused request fetches nothing.
/// HLS playlists are rewritten so their segments, maps and keys go through the proxy too.
public final class VideoProxyServer: Sendable {
    /// The cache the proxy serves from and fills.
    public let cache: VideoCache
    let configuration: Configuration
    private let running = LockedBox<Running?>(nil)
    let connections = LockedBox(ConnectionTable())
    let counters = LockedBox(Statistics())
    /// Refused connections still lingering, and whether refusing (``refuse(_:)``).
    let refusals = LockedBox(Refusals())
    private let subscribers = LockedBox<(next: Int, all: [Int: AsyncStream<Event>.Continuation])>((0, [:]))

    /// What a started server holds.
    struct Running: Sendable {
        let loop: SocketLoop
        let listener: TCPListener
        let token: String
        let port: Int
        let acceptTask: Task<Void, Never>
    }

    /// A server over `cache`; nothing listens before ``start()``.
    public init(cache: VideoCache, configuration: Configuration = Configuration()) {
        self.cache = cache
        self.configuration = configuration
    }

    /// Starts listening on 127.0.0.1 with a new random token, and returns the prefix every
    /// player URL starts with (`http://127.0.0.1:<port>/<token>/`). A running server returns
    /// its prefix unchanged.
    /// - Throws: ``VideoCacheError/listen(port:call:errno:)`` when the port is taken or no
    ///   socket can be made.
    @discardableResult
    public func start() throws(VideoCacheError) -> URL {
        if let base = baseURL { return base }
        let loop: SocketLoop
        let listener: TCPListener
        do throws(SocketError) {
            loop = try SocketLoop()
            do throws(SocketError) {
                listener = try TCPListener(port: configuration.port, loop: loop)
            } catch {
                loop.stop()
                throw error
            }
        } catch {
            guard case .system(let failure) = error else { throw .listen(port: configuration.port, call: "socket", errno: 0) }
            throw .listen(port: configuration.port, call: failure.call, errno: failure.code)
        }
        let token = Self.makeToken()
        // The accept loop and every connection run on the socket loop's thread, which sees
        // their sockets ready: no hand-over to another thread per request.
        let acceptTask = loop.task { [self] in await acceptLoop(listener, token: token, port: listener.port, loop: loop) }
        running.withLock { $0 = Running(loop: loop, listener: listener, token: token, port: listener.port, acceptTask: acceptTask) }
        let base = URL(string: "http://127.0.0.1:\(listener.port)/\(token)/")!
        publish(.started(base))
        return base
    }

    /// Stops accepting, ends every connection (their reads stop the downloads nobody else
    /// needs, and their readers write the index), and returns once all have ended.
    /// Idempotent; the server may be started again (with a new token).
    public func stop() async {
        guard let current = running.withLock({ state -> Running? in
            defer { state = nil }
            return state
        }) else { return }
        current.listener.close()
        current.acceptTask.cancel()
        await current.acceptTask.value
        for task in connections.withLock({ $0.allTasks() }) {
            task.cancel()
            await task.value
        }
        current.loop.stop()
        publish(.stopped)
    }

    /// `http://127.0.0.1:<port>/<token>/` while running, `nil` when stopped.
    public var baseURL: URL? {
        running.withLock { $0.map { URL(string: "http://127.0.0.1:\($0.port)/\($0.token)/")! } }
    }

    /// The port it listens on while running, `nil` when stopped.
    public var port: Int? { running.withLock { $0?.port } }

    /// The player URL of `origin` (the whole absolute URL percent-encoded as one path segment
    /// after the token); `nil` while stopped.
    public func url(for origin: URL) -> URL? {
        running.withLock { state in
            state.map { URL(string: "http://127.0.0.1:\($0.port)" + ProxyRoute.path(for: origin, token: $0.token))! }
        }
    }

    /// Counts since this server was made.
    public var statistics: Statistics {
        var snapshot = counters.withLock { $0 }
        snapshot.openConnections = connections.withLock { $0.count }
        return snapshot
    }

    /// What happens from now on (starts, each answered request, stops): every call gets its
    /// own stream; ending the iteration unsubscribes. Events of a busy server are buffered,
    /// the oldest dropped past 1,024 unread.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1024))
        let id = subscribers.withLock { state -> Int in
            state.next += 1
            state.all[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [subscribers] _ in
            _ = subscribers.withLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: Event) {
        for continuation in subscribers.withLock({ Array($0.all.values) }) { continuation.yield(event) }
        if let log = configuration.log, let line = Self.logEvent(for: event, maxConnections: configuration.maxConnections) { log(line) }
    }

    /// 24 random characters of `A-Z a-z 0-9 - _` (143 bits), new at every start.
    private static func makeToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    private func acceptLoop(_ listener: TCPListener, token: String, port: Int, loop: SocketLoop) async {
        while !Task.isCancelled {
            let connection: TCPConnection
            do {
                connection = try await listener.accept()
            } catch SocketError.closed {
                return
            } catch SocketError.system(let failure) {
                // Out of descriptors (or kernel memory): the pending client stays queued. Free
                // an idle connection, else wait for one of ours to end. Any other failure is
                // passed over too: an accept loop that returned would leave every later
                // client waiting in the queue for an answer that never comes.
                let ours = connections.withLock { $0.count }
                if ours > 0 {
                    guard await makeRoom(below: ours) else { return }
                } else if failure.code == EMFILE || failure.code == ENFILE || failure.code == ENOBUFS || failure.code == ENOMEM {
                    // None of ours to wait for: the descriptors are held elsewhere in the
                    // process, and nothing signals their release. Retry at a modest pace.
                    try? await Task.sleep(for: .milliseconds(50))
                }
                continue
            } catch {
                return
            }
            let id = connections.withLock { $0.reserve() }
            // Past the cap the longest-idle connection makes room: a thousand idle sockets
            // cannot lock a player out. When none is idle (every connection is answering), the
            // newcomer is told so, 503 with Retry-After, rather than left waiting unanswered.
            guard roomUnderCap() else {
                connections.withLock { $0.remove(id) }?.resume()
                refuse(connection)
                continue
            }
            refusals.withLock { $0.streak = false }
            let session = ProxyConnection(id: id, connection: connection, server: self, token: token, port: port)
            let task = loop.task { await session.run() }
            let stale = connections.withLock { !$0.attach(task, to: id) }
            if stale { task.cancel() }
        }
    }

    /// Closes the longest-idle connection when the newcomer just reserved put the table past
    /// the cap; `false` when none is idle to close (every other one is answering a request).
    private func roomUnderCap() -> Bool {
        let (evicted, full) = connections.withLock { table -> (Task<Void, Never>?, Bool) in
            guard table.count > configuration.maxConnections else { return (nil, false) }
            let task = table.evictOldestIdle()
            return (task, task == nil)
        }
        evicted?.cancel()
        return !full
    }

    /// Evicts idle connections, or waits for connections to end, until fewer than `limit` are
    /// open; `false` when the accept loop was cancelled (the server stops) meanwhile.
    private func makeRoom(below limit: Int) async -> Bool {
        var counted = false
        while !Task.isCancelled {
            let (evicted, seen) = connections.withLock { table -> (Task<Void, Never>??, Int) in
                guard table.count >= limit else { return (nil, table.version) }
                return (.some(table.evictOldestIdle()), table.version)
            }
            switch evicted {
            case nil:
                return true
            case .some(let task?):
                task.cancel()
            case .some(nil):
                if !counted {
                    counted = true
                    counters.withLock { $0.connectionWaits += 1 }
                    publish(.full(openConnections: connections.withLock { $0.count }))
                }
                await waitForConnectionChange(after: seen)
            }
        }
        return false
    }

    /// Sleeps until a connection ends or goes idle after `version`, or the task is cancelled.
    private func waitForConnectionChange(after version: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock: a cancellation whose handler ran before this found
                // nothing to resume, and its flag is already set.
                let now = connections.withLock { Task.isCancelled ? continuation : $0.watch(after: version, continuation) }
                now?.resume()
            }
        } onCancel: {
            connections.withLock { $0.unwatch() }?.resume()
        }
    }
}
