import DouyinSupport
import Foundation

/// A record of one answered request (short name for this file and the playlist's).
typealias RequestRecord = VideoProxyServer.RequestRecord

/// One client connection of a ``VideoProxyServer``: reads request heads under the idle and
/// head deadlines, answers each, and ends on `Connection: close`, a malformed request, a
/// deadline, an answer cut short, or the server's stop (its task cancelled).
struct ProxyConnection: Sendable {
    let id: Int
    let connection: TCPConnection
    let server: VideoProxyServer
    let token: String
    let port: Int

    func run() async {
        defer {
            // Off the books before the socket closes, so a client that sees the close also
            // sees the count without it.
            server.connections.withLock { $0.remove(id) }?.resume()
            connection.close()
        }
        let configuration = server.configuration
        var parser = HTTPRequestParser(maxHeadBytes: configuration.maxHeadBytes)
        var routes = RouteMemo()
        do {
            while !Task.isCancelled {
                // Waiting for a head: idle until its first byte, then the head deadline runs
                // (it never restarts, so trickling bytes does not keep a slowloris alive).
                server.connections.withLock { $0.setWaiting(id, true) }?.resume()
                let idleDeadline = ContinuousClock.now + configuration.idleTimeout
                var headDeadline: ContinuousClock.Instant? = parser.hasPartialHead ? .now + configuration.headTimeout : nil
                var head: HTTPRequestHead?
                while head == nil {
                    switch parser.next() {
                    case .request(let request):
                        head = request
                    case .refuse(let status, let reason):
                        try await sendSimple(status: status, keepAlive: false, extra: Self.refusalFields(status), method: "GET")
                        server.record(RequestRecord(method: "?", origin: nil, status: status, bodyBytes: 0, refusal: reason), refused: true)
                        return
                    case .needMore:
                        if headDeadline == nil, parser.hasPartialHead { headDeadline = .now + configuration.headTimeout }
                        let bytes = try await connection.receive(maxCount: 16_384, deadline: headDeadline ?? idleDeadline)
                        if bytes.isEmpty { return }
                        parser.append(bytes)
                    }
                }
                _ = server.connections.withLock { $0.setWaiting(id, false) }
                guard let head else { return }
                let route = routes.route(of: head, token: token, port: port)
                guard try await answer(head, route: route) else { return }
            }
        } catch {
            // A deadline, a client that went away, or the server's stop: the connection ends;
            // the reads it alone needed stop with it.
        }
    }

    /// Answers one request; whether the connection may carry another.
    private func answer(_ head: HTTPRequestHead, route: RouteMemo.Routed) async throws -> Bool {
        switch route.route {
        case .refuse(let status, let reason):
            // Nothing is fetched for a refused request.
            try await sendSimple(status: status, keepAlive: head.keepAlive, extra: Self.refusalFields(status), method: head.method)
            server.record(RequestRecord(method: head.method, origin: nil, status: status, bodyBytes: 0, refusal: reason), refused: true)
            return head.keepAlive
        case .origin(let url):
            return try await serve(url, head: head, playlistPath: route.hasPlaylistPath)
        }
    }

    private func serve(_ url: URL, head: HTTPRequestHead, playlistPath: Bool) async throws -> Bool {
        let reader = server.cache.reader(for: url)
        do {
            let keepAlive = try await serve(url, head: head, playlistPath: playlistPath, reader: reader)
            await Self.close(reader)
            return keepAlive
        } catch {
            await Self.close(reader)
            throw error
        }
    }

    /// Closes `reader` where it costs the other connections nothing: here when the close only
    /// bookkeeps, on the index writers' queue (awaited) when it writes the index, whose fsyncs
    /// would hold the socket loop's thread and every connection on it (after a cold answer,
    /// tens of milliseconds or more), or a thread of the async tasks' pool.
    private static func close(_ reader: VideoReader) async {
        guard reader.closeWouldWrite else { return reader.close() }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            IndexWriteQueue.queue.async {
                reader.close()
                done.resume()
            }
        }
    }

    private func serve(_ url: URL, head: HTTPRequestHead, playlistPath: Bool, reader: VideoReader) async throws -> Bool {
        let heldBefore = server.cache.cachedRanges(for: url)
        // Cold, and the bytes wanted are known without the length: the read starts now and
        // its answer's head tells the length, one origin round trip instead of a probe first.
        var early: (chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator, first: Data?, range: Range<Int64>)?
        if head.method == "GET", reader.knownContentInfo?.length == nil, let wanted = RangeAnswer.bytesNamed(by: head.value("range")) {
            var chunks = reader.chunks(wanted).makeAsyncIterator()
            do {
                let first = try await chunks.next()
                if first != nil { early = (chunks, first, wanted) }
            } catch let error as VideoCacheError {
                return try await fail(error, url: url, head: head)
            }
        }
        let info: VideoContentInfo
        do {
            info = try await reader.contentInfo()
        } catch let error as VideoCacheError {
            return try await fail(error, url: url, head: head)
        }
        guard let length = info.length else {
            return try await fail(.invalidResponse("the origin sent no length"), url: url, head: head)
        }
        if playlistPath || ProxyPlaylist.isPlaylistType(info.mimeType) {
            return try await servePlaylist(url, info: info, length: length, reader: reader, head: head)
        }
        var fields: [(String, String)] = [("Content-Type", info.mimeType ?? "application/octet-stream")]
        let range: Range<Int64>
        let status: Int
        switch RangeAnswer(header: head.value("range"), length: length) {
        case .unsatisfiable:
            try await sendSimple(status: 416, keepAlive: head.keepAlive, extra: [("Content-Range", "bytes */\(length)")], method: head.method)
            server.record(RequestRecord(method: head.method, origin: url, status: 416, bodyBytes: 0), refused: false)
            return head.keepAlive
        case .whole:
            (range, status) = (0..<length, 200)
        case .partial(let part):
            (range, status) = (part, 206)
            fields.append(("Content-Range", "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)"))
        }
        fields.append(("Content-Length", String(range.count)))
        let missing = heldBefore.missing(in: range).reduce(Int64(0)) { $0 + Int64($1.count) }
        // The early read covers exactly this answer's bytes (the engine clips it to the
        // length); any other answer reads afresh.
        let earlyServes = early.map { $0.range.lowerBound == range.lowerBound && min($0.range.upperBound, length) == range.upperBound } ?? false
        // A body follows at once (held, or its first chunk in hand): the head may wait for its
        // first bytes to share a segment. Not before a fetch: the head would wait for the origin.
        let bodyFollows = head.method == "GET" && !range.isEmpty && (missing == 0 || earlyServes)
        try await sendHead(status: status, fields: fields, keepAlive: head.keepAlive, bodyFollows: bodyFollows)
        guard head.method == "GET" else {
            server.record(RequestRecord(method: head.method, origin: url, status: status, bodyBytes: 0), refused: false)
            return head.keepAlive
        }
        var sent: Int64 = 0
        var failure: VideoCacheError?
        do {
            var chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator?
            var pending: Data?
            if let early, earlyServes {
                (chunks, pending) = (early.chunks, early.first)
            } else {
                // Warm bytes whose blocks were checked while the file has not changed since go
                // straight from the file (sendfile); from the first that were not, the read
                // that checks what it reads takes over, held to the same version.
                var fast: (bytes: Int64, epoch: Int?) = (0, nil)
                if server.configuration.sendsFromFile {
                    fast = try await reader.sendVerified(range, over: connection, deadline: .now + server.configuration.writeTimeout)
                }
                sent = fast.bytes
                if fast.bytes > 0 { server.counters.withLock { $0.bytesSentFromFile += fast.bytes } }
                if sent < Int64(range.count), server.configuration.sendsFromFile, bodyFollows {
                    // The fast path stopped short (the file changed, a block to check): the rest
                    // may need the origin, and a head held back for its body would wait for it.
                    connection.pushHeldBytes()
                }
                if sent < Int64(range.count) {
                    chunks = reader.chunks((range.lowerBound + sent)..<range.upperBound, continuing: fast.epoch).makeAsyncIterator()
                }
            }
            early = nil
            while true {
                let chunk: Data
                if let first = pending {
                    (chunk, pending) = (first, nil)
                } else if let next = try await chunks?.next() {
                    chunk = next
                } else {
                    break
                }
                try await connection.send(chunk, deadline: .now + server.configuration.writeTimeout)
                sent += Int64(chunk.count)
            }
        } catch let error as VideoCacheError {
            failure = error
        } catch {
            // The client went away (or the server stopped): only this read's fetches stop.
            server.record(RequestRecord(method: head.method, origin: url, status: status, bodyBytes: sent, error: .cancelled), refused: false, served: sent, fromOrigin: min(sent, missing))
            throw error
        }
        server.record(RequestRecord(method: head.method, origin: url, status: status, bodyBytes: sent, error: failure), refused: false, served: sent, fromOrigin: min(sent, missing))
        // Short of the promised length (the origin failed mid-way, the file changed): closing
        // is the only honest end; the client sees a truncated body, never a wrong byte.
        return sent == Int64(range.count) && head.keepAlive
    }

    /// Answers an origin failure: its own 4xx/5xx status, 502 for anything else.
    private func fail(_ error: VideoCacheError, url: URL, head: HTTPRequestHead) async throws -> Bool {
        var status = 502
        if case .originStatus(let code, _) = error, (400...599).contains(code) { status = code }
        try await sendSimple(status: status, keepAlive: head.keepAlive, extra: [], method: head.method)
        server.record(RequestRecord(method: head.method, origin: url, status: status, bodyBytes: 0, error: error), refused: false)
        return head.keepAlive
    }

    /// The fields a refusal with `status` carries: a 405 says what is allowed (RFC 9110 §15.5.6).
    static func refusalFields(_ status: Int) -> [(String, String)] {
        status == 405 ? [("Allow", HTTPRequestParser.allowedMethods)] : []
    }

    /// A response with an empty body.
    func sendSimple(status: Int, keepAlive: Bool, extra: [(String, String)], method: String) async throws {
        try await sendHead(status: status, fields: extra + [("Content-Length", "0")], keepAlive: keepAlive)
    }

    /// Sends a response head; `bodyFollows` when the body's bytes are written right after it
    /// (the kernel may then send both in one segment: ``TCPConnection/send(_:more:deadline:)``).
    func sendHead(status: Int, fields: [(String, String)], keepAlive: Bool, bodyFollows: Bool = false) async throws {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in fields + [("Accept-Ranges", "bytes"), ("Connection", keepAlive ? "keep-alive" : "close")] {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        try await connection.send(Data(text.utf8), more: bodyFollows, deadline: .now + server.configuration.writeTimeout)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 416: "Range Not Satisfiable"
        case 431: "Request Header Fields Too Large"
        case 502: "Bad Gateway"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// The route of a connection's last request, reused while the next names the same target,
/// Host and method: a player asks one resource for range after range, and parsing the origin
/// URL out of the path each time was a twentieth of the proxy's CPU per small answer.
struct RouteMemo {
    /// A request's route, and whether its origin URL's path names a playlist.
    struct Routed {
        var route: ProxyRoute
        var hasPlaylistPath: Bool
    }

    private var last: (target: String, host: String?, method: String, routed: Routed)?

    /// The route of `head` on a server on `port` with `token`: ``ProxyRoute/init(head:token:port:)``,
    /// which depends on nothing else, so an equal target, Host and method give the same.
    mutating func route(of head: HTTPRequestHead, token: String, port: Int) -> Routed {
        let host = head.value("host")
        if let last, Self.sameBytes(last.target, head.target), Self.sameBytes(last.method, head.method), Self.sameBytes(last.host, host) {
            return last.routed
        }
        let route = ProxyRoute(head: head, token: token, port: port)
        var playlistPath = false
        if case .origin(let url) = route { playlistPath = ProxyPlaylist.isPlaylistPath(url) }
        let routed = Routed(route: route, hasPlaylistPath: playlistPath)
        last = (head.target, host, head.method, routed)
        return routed
    }

    /// Whether `a` and `b` are the same bytes (both absent counts): `String` equality would
    /// take canonically equivalent text as the same.
    private static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }
}

extension VideoProxyServer {
    /// Counts an answered request and tells the subscribers.
    func record(_ record: RequestRecord, refused: Bool, served: Int64 = 0, fromOrigin: Int64 = 0) {
        counters.withLock { counters in
            counters.requests += 1
            if refused { counters.refusedRequests += 1 }
            counters.bytesServed += served
            counters.bytesFromOrigin += fromOrigin
            counters.bytesFromCache += served - fromOrigin
        }
        publish(.request(record))
    }
}
