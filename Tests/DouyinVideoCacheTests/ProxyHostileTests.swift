import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Clients no player is: each gets a 4xx or a closed socket, and a real client (curl) is
/// served meanwhile, never held up.
@Suite("Proxy server against hostile clients", .serialized)
struct ProxyHostileTests: ProxySuite {
    let fixture: ProxyFixture

    init() async throws {
        fixture = try await ProxyFixture(file: videoBytes(50_000, seed: 7))
    }

    /// A real client's request still works.
    func expectServed(_ server: VideoProxyServer) async throws {
        let answer = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-r", "0-999"])
        #expect(answer.status == 206)
        #expect(answer.body == file.prefix(1000))
    }

    /// What a raw client gets for `request`: the status line's code, or nil for a closed socket.
    func rawStatus(_ request: [UInt8], port: Int) async throws -> Int? {
        try await onOwnThread {
            let client = try RawClient(port: port)
            client.send(request)
            let (bytes, _) = client.readToEnd()
            let text = String(decoding: bytes.prefix(64), as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 ") else { return nil }
            return Int(text.dropFirst(9).prefix(3))
        }
    }

    @Test func aTenMegabyteHeadGets431OrAClosedSocket() async throws {
        let server = try server()
        let port = server.port!
        var request = Array("GET \(server.url(for: nginx.url("/v/a.mp4"))!.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n".utf8)
        request += Array(repeating: UInt8(ascii: "a"), count: 10 << 20).enumerated().map { $0.offset % 100 == 0 ? UInt8(ascii: ":") : $0.element }
        let status = try await rawStatus(request, port: port)
        #expect(status == nil || status == 431)
        try await expectServed(server)
        await server.stop()
        #expect(nginx.requests().count == 1)
        folder.remove()
    }

    @Test(arguments: [
        "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nThisLineHasNoColon\r\n\r\n",
        "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n",
        "NOT A REQUEST LINE AT ALL\r\n\r\n",
    ])
    func malformedRequestsGet400(_ request: String) async throws {
        let server = try server()
        let status = try await rawStatus(Array(request.utf8), port: server.port!)
        #expect(status == 400)
        try await expectServed(server)
        await server.stop()
        #expect(nginx.requests().count == 1)
        folder.remove()
    }

    /// Issue 36 item 5: heads whose lines end in a bare LF (RFC 9112 §2.2) got no answer until
    /// the head deadline; they get 400 at once, on a connection the server then closes.
    @Test(arguments: ["GET /x HTTP/1.1\nHost: 127.0.0.1\n\n", "GET /x HTTP/1.1\r\nHost: 127.0.0.1\n\n", "GET /x HTTP/1.0\n\n"])
    func bareLineFeedsGet400NotSilence(_ request: String) async throws {
        let server = try server()
        let answer = try await rawAnswer(Array(request.utf8), port: server.port!)
        #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(answer.debugDescription)")
        try await expectServed(server)
        await server.stop()
        #expect(nginx.requests().count == 1)
        folder.remove()
    }

    /// Issue 36 item 5: a method the proxy does not serve gets 405 with `Allow: GET, HEAD`,
    /// with a body or without, a good token and Host or not; nothing is fetched.
    @Test func otherMethodsGet405WithAllow() async throws {
        let server = try server()
        let port = server.port!
        let path = server.url(for: nginx.url("/v/a.mp4"))!.path(percentEncoded: true)
        for request in ["POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 5\r\n\r\nhello",
                        "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                        "DELETE \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n",
                        "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n",
                        "POST /wrong-token/x HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\n\r\nhi"] {
            let answer = try await rawAnswer(Array(request.utf8), port: port)
            #expect(answer.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"), "\(request.prefix(8)): \(answer.debugDescription)")
            #expect(answer.contains("\r\nAllow: GET, HEAD\r\n"), "\(request.prefix(8)): \(answer.debugDescription)")
        }
        try await expectServed(server)
        await server.stop()
        #expect(nginx.requests().count == 1)
        folder.remove()
    }

    /// What a raw client gets for `request` until the server closes: the answer as text.
    func rawAnswer(_ request: [UInt8], port: Int) async throws -> String {
        try await onOwnThread {
            let client = try RawClient(port: port)
            client.send(request)
            return String(decoding: client.readToEnd().bytes, as: UTF8.self)
        }
    }

    /// A client that starts a head and never finishes it is closed at the head deadline,
    /// while a real client is served in between.
    @Test func aSlowlorisClientIsClosedAtTheHeadDeadline() async throws {
        let server = try server { $0.headTimeout = .seconds(1) }
        let port = server.port!
        let client = try RawClient(port: port)
        client.send(Array("GET /\(String(repeating: "a", count: 30)) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ".utf8))
        try await expectServed(server)
        let (bytes, closed) = try await onOwnThread { client.readToEnd() }
        #expect(closed)
        #expect(bytes.isEmpty)
        #expect(server.statistics.openConnections == 0)
        await server.stop()
        folder.remove()
    }

    /// A thousand idle connections: past the cap the longest idle make room, so a real
    /// client is served and the server never holds more than its cap.
    @Test func aThousandIdleConnectionsNeitherBlockNorPileUp() async throws {
        let server = try server { $0.maxConnections = 64 }
        // Held by a second process (IdleClients says why), which connects without blocking a
        // thread of the server's here.
        let clients = try await IdleClients(port: server.port!, count: 1000)
        try await expectServed(server)
        #expect(server.statistics.openConnections <= 65)
        // The first ones were closed to make room.
        #expect(try await clients.firstWasClosed())
        await clients.stop()
        await server.stop()
        #expect(server.statistics.openConnections == 0)
        folder.remove()
    }

    /// Under the default cap (1,024) a thousand silent connections are all held, none closed
    /// to make room, and a real client is still served (with the old default of 256, 744 of
    /// them were closed).
    @Test func theDefaultCapHoldsAThousandSilentConnections() async throws {
        let server = try server()
        let clients = try await IdleClients(port: server.port!, count: 1000)
        // The accept queue is first in, first out: once this client is served, every idle one
        // before it has been accepted.
        try await expectServed(server)
        #expect(server.statistics.openConnections >= 1000)
        #expect(try await clients.openCount() == 1000)
        await clients.stop()
        await server.stop()
        #expect(server.statistics.openConnections == 0)
        folder.remove()
    }

    /// Given a cap of one connection, busy with a request its origin holds: a second client is
    /// refused politely, 503 with Retry-After and Connection: close (the server says `.full`),
    /// and once the first answer is done the next client is served.
    @Test func pastTheCapWithNoneIdleANewClientGetsA503WithRetryAfter() async throws {
        let gate = DispatchSemaphore(value: 0)
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let origin = try ScriptedHTTPServer { request, number in
            if number == 0 {
                arrived.yield()
                gate.wait()
            }
            return .partial(file, request.byteRange ?? 0...(file.count - 1))
        }
        let server = try server { $0.maxConnections = 1 }
        let events = server.events()
        async let held = curl(server.url(for: origin.url("/held.mp4"))!)
        // The first connection is busy once its request reached the origin.
        for await _ in arrivals { break }
        // When a newcomer asks while it is busy
        let refused = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-r", "0-999"])
        // Then it is answered 503, told when to come back, and the connection ends
        #expect(refused.status == 503, "curl exit \(refused.exitCode): \(refused.stderr)")
        #expect(refused.fields["retry-after"] == "1")
        #expect(refused.fields["connection"] == "close")
        #expect(refused.body.isEmpty)
        var told = false
        for await event in events {
            if case .full = event {
                told = true
                break
            }
        }
        #expect(told)
        gate.signal()
        let whole = try await held
        #expect(whole.status == 200 && whole.body == file)
        // And with the first connection gone, the next client is served
        let next = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-r", "0-999"])
        #expect(next.status == 206 && next.body == file.prefix(1000))
        #expect(server.statistics.refusedConnections == 1)
        #expect(server.statistics.connectionWaits == 0)
        await server.stop()
        origin.stop()
        folder.remove()
    }
}
