#if os(Linux)
import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Foundation
import Testing

/// What only libcurl's transport promises (issue 35): TLS against the system store or a CA
/// file, HTTP/2 where the origin offers it, one connection reused, and a wait that costs
/// nothing — checked from nginx's side (its log names the connection and the protocol) and
/// from the driver thread's (it sleeps in poll(2)), never by timing.
@Suite("CurlTransport", .hangGuard)
struct CurlTransportTests {
    static let file = seededBytes(200_000, seed: 3503)

    /// The shared TLS nginx with `file` under `path` (each test its own path, so its log
    /// lines are its own).
    static func origin(serving path: String) async throws -> TLSNginxOrigin {
        let origin = try await TLSNginxOrigin.shared.value()
        try origin.serve(file, at: path)
        return origin
    }

    // MARK: TLS

    @Test(arguments: ["127.0.0.1", "localhost"])
    func anOriginWithACertificateFromTheTestsCAIsTrustedWithThatCA(host: String) async throws {
        let origin = try await Self.origin(serving: "tls-\(host).bin")
        let transport = CurlTransport(configuration: .init(caFile: origin.caFile))
        let response = try await transport.send(HTTPRequest(url: origin.secureURL("/tls-\(host).bin", host: host)))
        #expect(response.head.status == 200)
        #expect(try await collect(response) == Self.file)
    }

    /// A certificate for another name fails the handshake: at once (not a timeout, no retry)
    /// and before any request reached the server. libcurl reports the name mismatch as
    /// CURLE_PEER_FAILED_VERIFICATION, `serverCertificateUntrusted`.
    @Test func aWrongHostNameFailsAtOnce() async throws {
        let origin = try await Self.origin(serving: "wrong-host.bin")
        let transport = CurlTransport(configuration: .init(caFile: origin.caFile))
        let error = await #expect(throws: URLError.self) {
            try await transport.send(HTTPRequest(url: origin.wrongHostURL("/wrong-host.bin")))
        }
        #expect(error?.code == .serverCertificateUntrusted, "\(String(describing: error))")
        #expect(origin.requests(under: "/wrong-host").isEmpty)
    }

    /// Without the CA file the system's trust store is used, and it does not know the tests' CA.
    @Test func theSystemTrustStoreRefusesTheTestsCA() async throws {
        let origin = try await Self.origin(serving: "system-store.bin")
        let error = await #expect(throws: URLError.self) {
            try await CurlTransport().send(HTTPRequest(url: origin.secureURL("/system-store.bin")))
        }
        #expect(error?.code == .serverCertificateUntrusted, "\(String(describing: error))")
        #expect(origin.requests(under: "/system-store").isEmpty)
    }

    // MARK: HTTP/2 and connections

    /// nginx's http2 module over TLS: the request arrived as HTTP/2 (its `$server_protocol`).
    @Test func http2IsSpokenWhereTheOriginOffersIt() async throws {
        let origin = try await Self.origin(serving: "h2.bin")
        let transport = CurlTransport(configuration: .init(caFile: origin.caFile))
        let response = try await transport.send(HTTPRequest(url: origin.secureURL("/h2.bin")))
        // HTTP/2 sends field names lowercased; they read the same.
        #expect(response.head.headers["Content-Length"] == String(Self.file.count))
        #expect(try await collect(response) == Self.file)
        #expect(origin.requests(under: "/h2.bin").map(\.serverProtocol) == ["HTTP/2.0"])
    }

    /// Two transfers one after the other to one host go over one connection: nginx served
    /// both on the same `$connection`, and the transport opened one.
    @Test(arguments: ["plain", "secure"])
    func twoSequentialTransfersReuseOneConnection(scheme: String) async throws {
        let path = "/reuse-\(scheme).bin"
        let origin = try await Self.origin(serving: String(path.dropFirst()))
        let transport = CurlTransport(configuration: .init(caFile: origin.caFile))
        let url = scheme == "plain" ? origin.plainURL(path) : origin.secureURL(path)
        for _ in 0..<2 {
            #expect(try await collect(transport.send(HTTPRequest(url: url))) == Self.file)
        }
        let served = origin.requests(under: path)
        #expect(served.count == 2)
        #expect(Set(served.map(\.connection)).count == 1, "\(served)")
        #expect(transport.statistics.connectionsOpened == 1)
        #expect(transport.statistics.transfers == 2)
    }

    /// `maximumConnectionsPerHost` holds the connections to one host at that many: nginx saw
    /// at most two of them for twelve transfers at once, in each of eight rounds. Every
    /// transfer ends well inside its idle limit: when libcurl kept the limit, about one round in
    /// ten left a queued transfer without a timer until the idle limit failed it a minute later.
    /// Counted per round: a whole-suite run under Thread Sanitizer once stood still longer
    /// than nginx's 60 s keep-alive between rounds, and the next round rightly opened two new
    /// connections (four in all).
    @Test func theConnectionsPerHostLimitIsHeld() async throws {
        let origin = try await Self.origin(serving: "capped.bin")
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 2))
        for round in 0..<8 {
            let openedBefore = transport.statistics.connectionsOpened
            defer { #expect(transport.statistics.connectionsOpened - openedBefore <= 2, "round \(round)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<12 {
                    group.addTask {
                        let request = HTTPRequest(url: origin.plainURL("/capped.bin?\(round)-\(number)"), idleTimeout: .seconds(20))
                        let data = try await collect(transport.send(request))
                        #expect(data == Self.file)
                    }
                }
                try await group.waitForAll()
            }
        }
        let served = origin.requests(under: "/capped.bin")
        #expect(served.count == 96)
        for round in 0..<8 {
            let connections = Set(served.filter { $0.uri.hasPrefix("/capped.bin?\(round)-") }.map(\.connection))
            #expect(connections.count <= 2, "round \(round): \(served)")
        }
    }

    /// A request waiting for a connection to its host that is cancelled, or whose deadline
    /// passes while it waits, ends so without ever reaching the server; the next waiter takes
    /// the slot when the running one ends.
    @Test func aWaitingRequestCancelledOrPastItsDeadlineNeverReachesTheServer() async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { exchange in
            if exchange.request.target == "/held" { _ = exchange.hold(until: gate) }
            exchange.respond(200, body: Data(exchange.request.target.utf8))
        }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let held = Task { try await collect(transport.send(HTTPRequest(url: server.url("/held")))) }
        await server.arrivals.reached(1)
        let cancelled = Task { try await transport.send(HTTPRequest(url: server.url("/cancelled"))) }
        let late = Task { try await transport.send(HTTPRequest(url: server.url("/late"), deadline: .now + .milliseconds(200))) }
        let next = Task { try await collect(transport.send(HTTPRequest(url: server.url("/next")))) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let lateError = await #expect(throws: URLError.self) { try await late.value }
        #expect(lateError?.code == .timedOut)
        gate.open()
        #expect(try await held.value == Data("/held".utf8))
        #expect(try await next.value == Data("/next".utf8))
        #expect(server.requests().map(\.target) == ["/held", "/next"])
        #expect(transport.statistics.transfers == 2)
    }

    // MARK: Paused transfers

    /// An endless body from the test server, paused for a reader that does not read.
    static func pausedTransfer(on transport: CurlTransport, _ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await transport.send(request)
        #expect(await waitUntil { transport.statistics.pauses >= 1 })
        return response
    }

    /// A server whose `/silent` answers nothing until `gate` opens, and whose every other path
    /// answers 200 with an endless body.
    static func silentOrEndless(holdingAt gate: ServerGate) throws -> HTTPTestServer {
        try HTTPTestServer { exchange in
            if exchange.request.target == "/silent" {
                exchange.hold(until: gate)
            } else {
                exchange.sendHead(200)
                exchange.sendEndlessBody()
            }
        }
    }

    /// A transfer paused for its reader waits for the reader, not the network: the idle limit
    /// does not end it. Proven by order, not time: a second transfer with the same idle limit,
    /// started after the first paused, times out first; the paused one then still reads on.
    @Test func theIdleLimitDoesNotEndATransferPausedForItsReader() async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try Self.silentOrEndless(holdingAt: gate)
        let transport = CurlTransport()
        let paused = try await Self.pausedTransfer(on: transport, HTTPRequest(url: server.url("/endless"), idleTimeout: .seconds(1), bufferLimit: 64 << 10))
        let error = await #expect(throws: URLError.self) {
            try await collect(transport.send(HTTPRequest(url: server.url("/silent"), idleTimeout: .seconds(1))))
        }
        #expect(error?.code == .timedOut)
        for _ in 0..<4 {
            #expect(try await paused.body.next() != nil)
        }
        paused.body.cancel()
    }

    /// The deadline ends a transfer however it waits, paused for its reader too: proven by
    /// order, a second transfer with the same deadline to a silent server ends first.
    @Test func theDeadlineEndsATransferPausedForItsReader() async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try Self.silentOrEndless(holdingAt: gate)
        let transport = CurlTransport()
        let deadline = ContinuousClock.now + .seconds(2)
        // The idle limit far away: only the deadline can end these.
        let paused = try await Self.pausedTransfer(on: transport, HTTPRequest(url: server.url("/endless"), deadline: deadline,
                                                                              idleTimeout: .seconds(600), bufferLimit: 64 << 10))
        let silent = await #expect(throws: URLError.self) {
            try await collect(transport.send(HTTPRequest(url: server.url("/silent"), deadline: deadline, idleTimeout: .seconds(600))))
        }
        #expect(silent?.code == .timedOut)
        // The bytes held before the deadline, then the deadline's error: not an endless read.
        let error = await #expect(throws: URLError.self) {
            while try await paused.body.next() != nil {}
        }
        #expect(error?.code == .timedOut)
    }

    // MARK: Waiting costs nothing

    /// A transfer whose answer is held leaves the driver's thread asleep in poll(2) with a
    /// timeout near the idle limit: woken by a socket, a command or the limit, never spinning.
    /// (The CPU it costs is measured by `make bench`; this is the structure that makes it
    /// nothing.) The upload progress callback, run on the driver's thread, names the thread.
    @Test func aTransferWaitingOnAHeldAnswerLeavesTheDriverAsleepInPoll() async throws {
        let gate = ServerGate()
        defer { gate.open() }
        let server = try HTTPTestServer { $0.hold(until: gate) }
        let driverThread = LockedBox<Int?>(nil)
        let request = HTTPRequest(url: server.url("/held"), method: "POST", body: .data(Data("x".utf8)), idleTimeout: .seconds(600),
                                  uploadProgress: { _, _ in driverThread.withLock { $0 = ThreadState.currentThreadID() } })
        let transport = CurlTransport()
        let exchange = Task { try await transport.send(request) }
        defer { exchange.cancel() }
        await server.arrivals.reached(1)
        let thread = try #require(driverThread.withLock { $0 })
        // Settles once the request is out; then it must stay parked in poll with a long timeout.
        let parked = await waitUntil(limit: .seconds(60)) { ThreadState(thread: thread)?.pollTimeout.map { $0 >= 60_000 } ?? false }
        let state = ThreadState(thread: thread)
        #expect(parked, "driver thread: \(String(describing: state))")
        #expect(state?.runState == "S", "driver thread: \(String(describing: state))")
        #expect(!gate.isOpen)
    }
}

/// What /proc says a thread of this process is doing: its run state, and, when it is blocked
/// in poll(2), the timeout it passed.
struct ThreadState: CustomStringConvertible {
    /// `R` running, `S` sleeping …, from /proc/self/task/TID/stat.
    let runState: String
    /// /proc/self/task/TID/syscall: the system call number and arguments, or `running`.
    let syscall: String

    /// The thread's state now, or `nil` when it has gone.
    init?(thread: Int) {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
              let call = try? String(contentsOfFile: "/proc/self/task/\(thread)/syscall", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        runState = String(stat[stat.index(close, offsetBy: 2)...].prefix(1))
        syscall = call.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The milliseconds the thread waits in poll(2) (x86_64 7; `nil` when it is not there).
    var pollTimeout: Int? {
        let fields = syscall.split(separator: " ")
        #if arch(x86_64)
        let poll = "7"
        #else
        let poll = "-"
        #endif
        guard fields.count > 3, fields[0] == poll else { return nil }
        return Int(fields[3].dropFirst(2), radix: 16).map { Int(Int32(truncatingIfNeeded: $0)) }
    }

    var description: String { "state \(runState), syscall \(syscall)" }

    /// The calling thread's kernel id, from /proc/thread-self (`PID/task/TID`).
    static func currentThreadID() -> Int? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return nil }
        return link.split(separator: "/").last.flatMap { Int($0) }
    }
}
#endif
