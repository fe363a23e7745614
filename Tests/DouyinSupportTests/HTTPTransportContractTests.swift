import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// One contract for every HTTP transport (issue 35), run against each: libcurl's and
/// URLSession's must behave the same to the clients above the seam. Real nginx where a real
/// origin does it, an in-process ``HTTPTestServer`` where the test must hold, echo or lie.
/// No sleeps: the tests await what the server saw, and open its gates themselves.
@Suite("HTTP transport contract", .hangGuard)
struct HTTPTransportContractTests {
    /// One nginx for the suite: `/body.bin` (3 MiB, seeded), `/repeat/` answers with a
    /// repeated header, `/gz/` compresses with gzip when asked.
    static let nginx = StartedOnce { () throws -> NginxOrigin in
        let origin = try NginxOrigin(extraLocations: """
            location /repeat/ { add_header X-Repeat one; add_header X-Repeat two; }
            location /gz/ { gzip on; gzip_types *; gzip_min_length 0; gzip_comp_level 1; }
            """)
        try origin.serve(HTTPTransportContractTests.body, at: "body.bin")
        try origin.serve(Data("repeated".utf8), at: "repeat/r.txt")
        try origin.serve(HTTPTransportContractTests.text, at: "gz/text.txt")
        return origin
    }

    static let body = seededBytes(3 << 20, seed: 35)
    /// Compressible text: 400 KB of numbered lines.
    static let text = Data((0..<20_000).map { "line \($0) of the transport's gzip test\n" }.joined().utf8)

    // MARK: Reading

    @Test(arguments: HTTPTransportKind.available)
    func aGetReturnsTheBodyByteForByte(kind: HTTPTransportKind) async throws {
        let nginx = try await Self.nginx.value()
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: nginx.url("/body.bin"), bufferLimit: 16 << 20))
        #expect(response.head.status == 200)
        #expect(response.head.headers["content-length"] == String(Self.body.count))
        let data = try await collect(response)
        #expect(data == Self.body, "\(data.count) bytes")
    }

    @Test(arguments: HTTPTransportKind.available)
    func aRangeGets206AndItsHeadersReadCaseInsensitively(kind: HTTPTransportKind) async throws {
        let nginx = try await Self.nginx.value()
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        var request = HTTPRequest(url: nginx.url("/body.bin"))
        request.headers.set("Range", "bytes=1000-1999")
        let response = try await transport.send(request)
        #expect(response.head.status == 206)
        #expect(response.head.headers["content-range"] == "bytes 1000-1999/\(Self.body.count)")
        #expect(response.head.headers["CONTENT-RANGE"] == response.head.headers["Content-Range"])
        #expect(response.head.headers["Content-Length"] == "1000")
        #expect(try await collect(response) == Self.body[1000...1999])

        // A field sent twice reads as one value, joined as RFC 9110 §5.3 joins repeats.
        let repeated = try await transport.send(HTTPRequest(url: nginx.url("/repeat/r.txt")))
        #expect(repeated.head.headers["x-repeat"] == "one, two")
        #expect(try await collect(repeated) == Data("repeated".utf8))
    }

    @Test(arguments: HTTPTransportKind.available)
    func aHeadGetsTheHeadAndNoBody(kind: HTTPTransportKind) async throws {
        let nginx = try await Self.nginx.value()
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: nginx.url("/body.bin"), method: "HEAD"))
        #expect(response.head.status == 200)
        #expect(response.head.headers["Content-Length"] == String(Self.body.count))
        #expect(try await collect(response).isEmpty)
    }

    // MARK: Request bodies

    /// Where a request body comes from.
    enum BodySource: String, CaseIterable, Sendable, CustomStringConvertible {
        case memory, file
        var description: String { rawValue }

        /// `data` as a request body of this kind (a file in `folder` for `.file`).
        func body(_ data: Data, in folder: TemporaryDirectory) throws -> HTTPRequest.Body {
            switch self {
            case .memory:
                return .data(data)
            case .file:
                let file = folder.appending("upload.bin")
                try data.write(to: file)
                return .file(file)
            }
        }
    }

    /// Answers every request with its own method (`X-Method`) and body.
    static func echo(_ exchange: HTTPTestServer.Exchange) {
        exchange.respond(200, headers: [("X-Method", exchange.request.method)], body: exchange.request.body)
    }

    @Test(arguments: HTTPTransportKind.available, BodySource.allCases)
    func aPostSendsItsBody(kind: HTTPTransportKind, source: BodySource) async throws {
        let server = try HTTPTestServer(Self.echo)
        let sent = seededBytes(300_000, seed: 3501)
        try await withTemporaryDirectory { folder in
            let request = HTTPRequest(url: server.url("/echo"), method: "POST", body: try source.body(sent, in: folder))
            let transport = kind.make()
            defer { withExtendedLifetime(transport) {} }
            let response = try await transport.send(request)
            #expect(response.head.status == 200)
            #expect(response.head.headers["x-method"] == "POST")
            #expect(try await collect(response) == sent)
        }
        #expect(server.requests().map(\.headers["Content-Length"]) == [String(sent.count)])
    }

    /// A body file that is not there fails the exchange with the same `URLError` on every
    /// transport, before anything is sent.
    @Test(arguments: HTTPTransportKind.available)
    func aMissingBodyFileFailsTyped(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer(Self.echo)
        let missing = URL(fileURLWithPath: "/nonexistent/douyinkit-\(UUID().uuidString).bin")
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let error = await #expect(throws: URLError.self) {
            try await transport.send(HTTPRequest(url: server.url("/echo"), method: "POST", body: .file(missing)))
        }
        #expect(error?.code == .fileDoesNotExist)
        #expect(server.requests().isEmpty)
    }

    /// Interim 1xx answers are skipped; their fields are not the final answer's.
    @Test(arguments: HTTPTransportKind.available)
    func interimAnswersAreSkipped(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer { exchange in
            _ = exchange.sendBody(Data("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8))
            exchange.respond(200, headers: [("X-Final", "yes")], body: Data("final".utf8))
        }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        // FoundationNetworking takes the first head that ends as the answer, a 103 too, and
        // calls its delegate once: its transport cannot skip it (Apple's URLSession does).
        try await withKnownIssue("FoundationNetworking hands over a 103 as the final answer") {
            let response = try await transport.send(HTTPRequest(url: server.url("/early")))
            #expect(response.head.status == 200)
            #expect(response.head.headers["X-Final"] == "yes")
            #expect(response.head.headers["Link"] == nil)
            #expect(try await collect(response) == Data("final".utf8))
        } when: {
            #if canImport(FoundationNetworking)
            kind == .urlSession
            #else
            false
            #endif
        }
    }

    /// Many exchanges at once on one transport each get their own bytes.
    @Test(arguments: HTTPTransportKind.available)
    func manyExchangesAtOnceEachGetTheirOwnBytes(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer { exchange in
            let number = Int(exchange.request.target.dropFirst()) ?? 0
            exchange.respond(200, body: seededBytes(50_000 + number, seed: UInt64(number)))
        }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<24 {
                group.addTask {
                    let data = try await collect(transport.send(HTTPRequest(url: server.url("/\(number)"), bufferLimit: 1 << 20)))
                    #expect(data == seededBytes(50_000 + number, seed: UInt64(number)), "exchange \(number)")
                }
            }
            try await group.waitForAll()
        }
        #expect(server.requests().count == 24)
    }

    // MARK: Redirects

    @Test(arguments: HTTPTransportKind.available)
    func aRedirectIsFollowed(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer { exchange in
            switch exchange.request.target {
            case "/start": exchange.respond(302, headers: [("Location", "/final")], body: Data("moved".utf8))
            default: exchange.respond(200, body: Data("final".utf8))
            }
        }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: server.url("/start")))
        #expect(response.head.status == 200)
        #expect(response.head.url == server.url("/final"))
        #expect(try await collect(response) == Data("final".utf8))
        #expect(server.requests().map(\.target) == ["/start", "/final"])
    }

    /// RFC 9110 §15.4.8-9: a 307 or 308 repeats the request as it was, body and all (a
    /// FoundationNetworking defect once re-sent 307 POSTs empty).
    @Test(arguments: HTTPTransportKind.available, [307, 308])
    func a307Or308PostKeepsItsMethodAndBody(kind: HTTPTransportKind, status: Int) async throws {
        let server = try HTTPTestServer { exchange in
            if exchange.request.target == "/moved" {
                exchange.respond(status, headers: [("Location", "/echo")])
            } else {
                Self.echo(exchange)
            }
        }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        try await withTemporaryDirectory { folder in
            for source in BodySource.allCases {
                let sent = seededBytes(200_000, seed: UInt64(status))
                let request = HTTPRequest(url: server.url("/moved"), method: "POST", body: try source.body(sent, in: folder))
                let response = try await transport.send(request)
                #expect(response.head.headers["X-Method"] == "POST", "\(source)")
                #expect(try await collect(response) == sent, "\(source)")
            }
        }
        let echoed = server.requests().filter { $0.target == "/echo" }
        #expect(echoed.map(\.method) == ["POST", "POST"])
    }

    /// 301 and 302 turn a POST, 303 any method, into a GET without body (what browsers and
    /// curl do).
    @Test(arguments: HTTPTransportKind.available, [301, 302, 303])
    func a301302Or303PostBecomesABodilessGet(kind: HTTPTransportKind, status: Int) async throws {
        let server = try HTTPTestServer { exchange in
            if exchange.request.target == "/moved" {
                exchange.respond(status, headers: [("Location", "/echo")])
            } else {
                Self.echo(exchange)
            }
        }
        var request = HTTPRequest(url: server.url("/moved"), method: "POST", body: .data(Data("form=1".utf8)))
        request.headers.set("Content-Type", "application/x-www-form-urlencoded")
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(request)
        #expect(response.head.headers["X-Method"] == "GET")
        #expect(try await collect(response).isEmpty)
        let echo = try #require(server.requests().last)
        #expect(echo.method == "GET" && echo.body.isEmpty && echo.headers["Content-Type"] == nil)
    }

    /// Where a refused redirect points.
    enum ForbiddenTarget: String, CaseIterable, Sendable, CustomStringConvertible {
        case file, gopher
        var description: String { rawValue }
    }

    /// URLs come from data; libcurl speaks 25 protocols. A redirect may only lead to http(s),
    /// and nothing is fetched from anywhere else.
    @Test(arguments: HTTPTransportKind.available, ForbiddenTarget.allCases)
    func aRedirectToAnotherSchemeIsRefusedTyped(kind: HTTPTransportKind, target: ForbiddenTarget) async throws {
        let silent = try SilentListener()
        let location = target == .file ? "file:///etc/passwd" : "gopher://127.0.0.1:\(silent.port)/1"
        let server = try HTTPTestServer { $0.respond(302, headers: [("Location", location)]) }
        let error = await #expect(throws: HTTPTransportError.self) {
            try await kind.make().send(HTTPRequest(url: server.url("/start")))
        }
        #expect(error == .redirectRefused(status: 302, location: location))
        #expect(silent.connectionAttempts() == 0)
        #expect(server.requests().count == 1)
    }

    @Test(arguments: HTTPTransportKind.available)
    func tooManyRedirectsFailTyped(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer { exchange in
            let hop = Int(exchange.request.target.dropFirst("/hop/".count)) ?? 0
            exchange.respond(302, headers: [("Location", "/hop/\(hop + 1)")])
        }
        let error = await #expect(throws: HTTPTransportError.self) {
            try await kind.make().send(HTTPRequest(url: server.url("/hop/0"), maximumRedirects: 3))
        }
        #expect(error == .tooManyRedirects(status: 302, location: server.url("/hop/4").absoluteString))
        // The first request and three redirects followed; the fourth is not.
        #expect(server.requests().map(\.target) == ["/hop/0", "/hop/1", "/hop/2", "/hop/3"])
    }

    // MARK: Limits in time

    /// Where a held answer stops.
    enum Stall: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Before the head.
        case head
        /// After the head and 100 body bytes.
        case body
        var description: String { rawValue }

        /// Answers as far as this stall, then holds until `gate` opens (or the client leaves).
        func answer(_ exchange: HTTPTestServer.Exchange, holdingUntil gate: ServerGate) {
            if self == .body {
                exchange.sendHead(200, headers: [("Content-Length", "1000")])
                exchange.sendBody(Data(repeating: 0x62, count: 100))
            }
            exchange.hold(until: gate)
        }
    }

    /// Reads a whole answer, head and body, the way a client does.
    static func fetch(_ transport: any HTTPTransport, _ request: HTTPRequest) async throws -> Data {
        try await collect(try await transport.send(request))
    }

    @Test(arguments: HTTPTransportKind.available, Stall.allCases)
    func aStalledAnswerEndsAtTheDeadline(kind: HTTPTransportKind, stall: Stall) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { stall.answer($0, holdingUntil: gate) }
        // The idle limit far away: only the deadline can end this.
        let request = HTTPRequest(url: server.url("/held"), deadline: .now + .seconds(1), idleTimeout: .seconds(600))
        let error = await #expect(throws: URLError.self) { try await Self.fetch(kind.make(), request) }
        #expect(error?.code == .timedOut)
        #expect(!gate.isOpen)
        await server.departures.reached(1)
    }

    @Test(arguments: HTTPTransportKind.available, Stall.allCases)
    func theIdleLimitEndsASilentTransfer(kind: HTTPTransportKind, stall: Stall) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { stall.answer($0, holdingUntil: gate) }
        let request = HTTPRequest(url: server.url("/silent"), idleTimeout: .seconds(1))
        let error = await #expect(throws: URLError.self) { try await Self.fetch(kind.make(), request) }
        #expect(error?.code == .timedOut)
        await server.departures.reached(1)
    }

    // MARK: Cancellation

    /// Cancelling the calling task from another thread while the server holds the head: the
    /// cancel returns while the answer is still held (it waits for nothing), the exchange
    /// ends with `CancellationError`, and the connection is let go.
    @Test(arguments: HTTPTransportKind.available)
    func aCancelFromAnotherThreadBeforeTheHeadNeverBlocks(kind: HTTPTransportKind) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { $0.hold(until: gate) }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let exchange = Task { try await transport.send(HTTPRequest(url: server.url("/held"))) }
        await server.arrivals.reached(1)
        try await onOwnThread { exchange.cancel() }
        #expect(!gate.isOpen)
        await #expect(throws: CancellationError.self) { try await exchange.value }
        #expect(await server.departures.reached(1))
    }

    @Test(arguments: HTTPTransportKind.available)
    func aCancelFromAnotherThreadDuringTheBodyNeverBlocks(kind: HTTPTransportKind) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { Stall.body.answer($0, holdingUntil: gate) }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: server.url("/held")))
        let first = try await response.body.next()
        #expect(first?.data.count == 100)
        // A reader waits for the next bytes while another thread cancels.
        let reader = Task { try await response.body.next() }
        try await onOwnThread { response.body.cancel() }
        #expect(!gate.isOpen)
        await #expect(throws: CancellationError.self) { try await reader.value }
        await #expect(throws: CancellationError.self) { try await response.body.next() }
        #expect(await server.departures.reached(1))
    }

    /// A callback the transport runs (the upload progress, on its own thread) cancels the
    /// exchange it reports on: nothing deadlocks, the exchange ends cancelled.
    @Test(arguments: HTTPTransportKind.available)
    func aCancelFromInsideACallbackNeverBlocks(kind: HTTPTransportKind) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { $0.hold(until: gate) }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let armed = EventCount()
        let exchangeTask = LockedBox<Task<HTTPResponse, any Error>?>(nil)
        let body = seededBytes(100_000, seed: 3502)
        let request = HTTPRequest(url: server.url("/upload"), method: "POST", body: .data(body), uploadProgress: { sent, _ in
            if sent > 0 { exchangeTask.withLock { $0 }?.cancel() }
        })
        let task = Task {
            await armed.reached(1)
            return try await transport.send(request)
        }
        exchangeTask.withLock { $0 = task }
        armed.increment()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!gate.isOpen)
        #expect(await server.departures.reached(1))
    }

    /// Dropping an unread body ends the transfer and frees the connection. (The body is held,
    /// not endless: an endless one would also end through URLSession's buffer limit.)
    @Test(arguments: HTTPTransportKind.available)
    func droppingTheBodyCancelsTheTransfer(kind: HTTPTransportKind) async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { exchange in
            exchange.sendHead(200)
            exchange.sendBody(Data(repeating: 0x63, count: 1000))
            exchange.hold(until: gate)
        }
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        var response: HTTPResponse? = try await transport.send(HTTPRequest(url: server.url("/endless")))
        _ = try await response?.body.next()
        response = nil
        #expect(await server.departures.reached(1))
    }

    // MARK: Back-pressure

    /// An endless body under a consumer that lags: libcurl pauses the transfer (the buffer
    /// never holds much more than the limit, and the pauses are counted); URLSession, which
    /// cannot pause, ends the body with `consumerFellBehind` after the bytes it holds. For
    /// URLSession the body ends after 64 MiB, a thousand times the limit: every session of the
    /// process shares one FoundationNetworking queue, and a truly endless body at loopback
    /// speed kept it busy (and the process's memory growing by 23 MB/s) for the rest of a
    /// whole-suite run under Thread Sanitizer.
    @Test(arguments: HTTPTransportKind.available)
    func anEndlessBodyUnderASlowConsumerKeepsMemoryFlat(kind: HTTPTransportKind) async throws {
        let server = try HTTPTestServer { exchange in
            exchange.sendHead(200)
            if kind == .urlSession {
                exchange.sendBody(upTo: 64 << 20)
            } else {
                exchange.sendEndlessBody()
            }
        }
        let limit = 64 << 10
        let request = HTTPRequest(url: server.url("/endless"), bufferLimit: limit)
        switch kind {
        case .curl:
            #if os(Linux)
            let transport = CurlTransport()
            defer { withExtendedLifetime(transport) {} }
            let response = try await transport.send(request)
            // libcurl hands at most CURLOPT_BUFFERSIZE (16 KiB) a call: one offer past the limit.
            let bound = limit + (16 << 10)
            var read = 0
            for round in 1...20 {
                // The consumer lags: it reads only once the transfer has paused for it again.
                #expect(await waitUntil { transport.statistics.pauses >= round }, "round \(round)")
                let chunk = try #require(try await response.body.next())
                #expect(chunk.data.count <= bound, "round \(round): \(chunk.data.count) bytes held")
                read += chunk.data.count
            }
            #expect(read >= 20 * limit)
            response.body.cancel()
            #expect(await server.departures.reached(1))
            #endif
        case .urlSession:
            let transport = URLSessionTransport()
            defer { withExtendedLifetime(transport) {} }
            let response = try await transport.send(request)
            // The consumer reads nothing until the transport gave up on it and let go.
            #expect(await server.departures.reached(1))
            var read = 0
            let error = await #expect(throws: HTTPTransportError.self) {
                while let chunk = try await response.body.next() { read += chunk.data.count }
            }
            #expect(error == .consumerFellBehind)
            // What it held: the limit and one delivery past it.
            #expect(read > limit && read <= limit + (1 << 20), "\(read) bytes held")
        }
    }

    // MARK: Content decoding

    @Test(arguments: HTTPTransportKind.available, [true, false])
    func aGzipAnswerIsDecodedOnlyWhenAsked(kind: HTTPTransportKind, decodes: Bool) async throws {
        let nginx = try await Self.nginx.value()
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: nginx.url("/gz/text.txt"), decodesContent: decodes))
        #expect(response.head.status == 200)
        // Asked: nginx compressed it, and the transport undid that; not asked: nothing to undo.
        #expect(response.head.headers["Content-Encoding"] == (decodes ? "gzip" : nil))
        #expect(try await collect(response) == Self.text)
    }

    /// A gzip bomb (endless spaces, 1 MiB to about 1 KB) read through the body limit ends at
    /// the limit with the caller's error, the chunks before it no larger than the buffer.
    @Test(arguments: HTTPTransportKind.available)
    func aGzipBombStopsAtTheBodyLimit(kind: HTTPTransportKind) async throws {
        // Under Thread Sanitizer FoundationNetworking decodes the bomb and queues its chunks on
        // the delegate queue faster than they are delivered, and the cancel lags behind them:
        // seen streaming for over ten minutes, the process at 3.2 GB. libcurl's transport is
        // held to the rule there too; URLSession's only in plain runs (issue 35's report).
        if kind == .urlSession && ThreadSanitizer.isActive { return }
        let origin = try await HostileOrigin.start()
        let url = origin.base("gzip/100000000000").appendingPathComponent("bomb")
        // URLSession cannot pause: its buffer is made roomy so the reader, not the buffer, hits a limit.
        let bufferLimit = kind == .curl ? 256 << 10 : 64 << 20
        let transport = kind.make()
        defer { withExtendedLifetime(transport) {} }
        let response = try await transport.send(HTTPRequest(url: url, decodesContent: true, bufferLimit: bufferLimit))
        #expect(response.head.headers["Content-Encoding"] == "gzip")
        await #expect(throws: BodyTooLarge.self) {
            _ = try await response.body.collect(limit: 8 << 20, orThrow: BodyTooLarge())
        }
        // The body is over: nothing more is read.
        await #expect(throws: CancellationError.self) { try await response.body.next() }
    }

    // MARK: Schemes

    /// Only http and https are ever requested: anything else fails before a connection.
    @Test(arguments: HTTPTransportKind.available, ["file:///etc/passwd", "gopher://127.0.0.1:PORT/1", "ftp://127.0.0.1:PORT/x",
                                                   "dict://127.0.0.1:PORT/d", "http:///no-host"])
    func aRequestForAnotherSchemeIsUnsupported(kind: HTTPTransportKind, template: String) async throws {
        let silent = try SilentListener()
        let url = try #require(URL(string: template.replacingOccurrences(of: "PORT", with: String(silent.port))))
        let error = await #expect(throws: URLError.self) { try await kind.make().send(HTTPRequest(url: url)) }
        #expect(error?.code == .unsupportedURL)
        #expect(silent.connectionAttempts() == 0)
    }
}
