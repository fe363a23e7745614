import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// The proxy's HTTP contract (`douyinkit video serve` in DESIGN.md), driven with curl against a
/// real nginx origin.
@Suite("Proxy server against nginx, with curl", .serialized)
struct ProxyServerTests: ProxySuite {
    let fixture: ProxyFixture

    init() async throws {
        fixture = try await ProxyFixture(file: videoBytes(300_000, seed: 23), slowRate: "200k")
    }

    @Test func aWholeGetIsA200WithTheOriginsBytes() async throws {
        let server = try server()
        let started = ContinuousClock.now
        let answer = try await curl(server.url(for: nginx.url("/v/a.mp4"))!)
        let took = ContinuousClock.now - started
        let direct = try await curl(nginx.url("/v/a.mp4"), ["-I"])
        let statistics = server.statistics
        await server.stop()
        #expect(answer.status == 200, "curl exit \(answer.exitCode) after \(took): \(answer.stderr); server \(statistics)")
        #expect(answer.body == file)
        #expect(answer.fields["content-length"] == "300000")
        #expect(answer.fields["accept-ranges"] == "bytes")
        #expect(answer.fields["content-type"] == direct.fields["content-type"])
        folder.remove()
    }

    @Test(arguments: [
        ("bytes=0-99", 206, 0..<100, "bytes 0-99/300000"),
        ("bytes=1000-", 206, 1000..<300_000, "bytes 1000-299999/300000"),
        ("bytes=-500", 206, 299_500..<300_000, "bytes 299500-299999/300000"),
        ("bytes=-400000", 206, 0..<300_000, "bytes 0-299999/300000"),
        ("bytes=299990-400000", 206, 299_990..<300_000, "bytes 299990-299999/300000"),
        ("bytes=0-1,10-20", 200, 0..<300_000, nil),
        ("bytes=20-10", 200, 0..<300_000, nil),
    ] as [(String, Int, Range<Int>, String?)])
    func everyRangeFormIsAnsweredExactly(_ range: String, _ status: Int, _ bytes: Range<Int>, _ contentRange: String?) async throws {
        let server = try server()
        let answer = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-H", "Range: \(range)"])
        await server.stop()
        #expect(answer.status == status)
        #expect(answer.body == file.subdata(in: bytes))
        #expect(answer.fields["content-range"] == contentRange)
        #expect(answer.fields["content-length"] == String(bytes.count))
        folder.remove()
    }

    @Test func aRangeAtOrPastTheEndIs416WithTheLength() async throws {
        let server = try server()
        let url = server.url(for: nginx.url("/v/a.mp4"))!
        let atEnd = try await curl(url, ["-H", "Range: bytes=300000-"])
        let past = try await curl(url, ["-H", "Range: bytes=400000-400010"])
        await server.stop()
        for answer in [atEnd, past] {
            #expect(answer.status == 416)
            #expect(answer.fields["content-range"] == "bytes */300000")
            #expect(answer.body.isEmpty)
        }
        folder.remove()
    }

    @Test func headSendsTheFieldsWithoutABody() async throws {
        let server = try server()
        let answer = try await curl(server.url(for: nginx.url("/v/a.mp4"))!, ["-I"])
        await server.stop()
        #expect(answer.status == 200)
        #expect(answer.fields["content-length"] == "300000")
        // With -I curl writes the head to the body file too: nothing may follow it.
        #expect(String(decoding: answer.body, as: UTF8.self).hasSuffix("\r\n\r\n"))
        #expect(answer.body.count < 400)
        folder.remove()
    }

    /// curl reuses its connection for the second URL when the first answer kept it open.
    @Test func keepAliveCarriesSeveralRequestsOnOneConnection() async throws {
        let server = try server()
        let url = server.url(for: nginx.url("/v/a.mp4"))!
        let result = try await runProcess(try tool("curl"), ["-s", "--http1.1", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                                                             "-w", "%{http_code} %{num_connects}\n", "-r", "0-9", url.absoluteString, url.absoluteString, url.absoluteString])
        await server.stop()
        #expect(result.stdout == "206 1\n206 0\n206 0\n")
        folder.remove()
    }

    /// One keep-alive connection naming two resources in turn, and one of them under a
    /// foreign Host: each answer is its own resource's bytes or refusal (a connection reuses
    /// its last request's route only while target, Host and method are the same).
    @Test func oneConnectionAnswersEachRequestForItsOwnResource() async throws {
        let other = videoBytes(200_000, seed: 24)
        try nginx.serve(other, at: "/v/b.mp4")
        let server = try server()
        let a = server.url(for: nginx.url("/v/a.mp4"))!.absoluteString, b = server.url(for: nginx.url("/v/b.mp4"))!.absoluteString
        let out = folder.appending("bodies")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // The foreign Host right after a good request for the same target and method: only a
        // route that depends on Host refuses it.
        let requests: [(url: String, extra: [String])] = [(a, []), (b, []), (a, []), (a, ["-H", "Host: attacker.example:\(server.port!)"]),
                                                          (a, ["-I"]), (a, []), (b, [])]
        var arguments: [String] = []
        for (index, request) in requests.enumerated() {
            arguments += (index == 0 ? [] : ["--next"]) + ["-s", "--http1.1", "-w", "%{http_code} %{num_connects}\n", "-r", "100-1099",
                                                          "-o", out.appendingPathComponent("\(index)").path] + request.extra + [request.url]
        }
        let result = try await runProcess(try tool("curl"), arguments)
        await server.stop()
        #expect(result.stdout == "206 1\n206 0\n206 0\n403 0\n206 0\n206 0\n206 0\n")
        func body(_ index: Int) -> Data? { try? Data(contentsOf: out.appendingPathComponent("\(index)")) }
        #expect(body(0) == file[100..<1100])
        #expect(body(1) == other[100..<1100])
        #expect(body(2) == file[100..<1100])
        #expect(body(5) == file[100..<1100])
        #expect(body(6) == other[100..<1100])
        folder.remove()
    }

    /// Given a wrong token, a foreign Host (DNS rebinding) or a non-http origin, the proxy
    /// refuses and nginx sees no request.
    @Test func refusedRequestsFetchNothing() async throws {
        let server = try server()
        let good = server.url(for: nginx.url("/v/a.mp4"))!
        let port = server.port!
        let wrongToken = URL(string: good.absoluteString.replacingOccurrences(of: server.baseURL!.path, with: "/AAAAAAAAAAAAAAAAAAAAAAAA/"))!
        let noToken = URL(string: "http://127.0.0.1:\(port)/" + good.lastPathComponent)!
        #expect(try await curl(wrongToken).status == 403)
        #expect(try await curl(noToken).status == 403)
        #expect(try await curl(good, ["-H", "Host: attacker.example:\(port)"]).status == 403)
        #expect(try await curl(good, ["-H", "Host: 127.0.0.1:1"]).status == 403)
        #expect(try await curl(server.url(for: URL(string: "ftp://127.0.0.1:\(nginx.port)/v/a.mp4")!)!).status == 400)
        #expect(try await curl(server.url(for: URL(string: "file:///etc/passwd")!)!).status == 400)
        #expect(try await curl(good, ["-X", "POST"]).status == 405)
        #expect(try await curl(good, ["-H", "Host: localhost:\(port)", "-r", "0-0"]).status == 206)
        await server.stop()
        #expect(nginx.requests().map(\.uri) == ["/v/a.mp4"])
        #expect(server.statistics.refusedRequests == 7)
        folder.remove()
    }

    @Test func anOrigin404IsPassedThroughAndNothingCached() async throws {
        let server = try server()
        let missing = nginx.url("/v/missing.mp4")
        let answer = try await curl(server.url(for: missing)!)
        await server.stop()
        #expect(answer.status == 404)
        #expect(server.cache.cachedRanges(for: missing).isEmpty)
        folder.remove()
    }

    @Test func aTransportFailureIs502() async throws {
        let closed = try ClosedPort()
        let server = try server()
        let answer = try await curl(server.url(for: URL(string: "http://127.0.0.1:\(closed.port)/v.mp4")!)!)
        await server.stop()
        #expect(answer.status == 502)
        folder.remove()
    }

    /// Given a client that hangs up mid-body and one reading the whole file at once, the
    /// second gets every byte: the first one's going away stopped only its own work.
    @Test func aClientGoingAwayStopsOnlyItsOwnWork() async throws {
        let server = try server()
        let url = server.url(for: nginx.url("/slow/a.mp4"))!
        async let quitter = curl(url, ["--max-filesize", "1", "-r", "0-299999", "--limit-rate", "10k"])
        async let reader = curl(url)
        let (gone, whole) = try await (quitter, reader)
        await server.stop()
        #expect(gone.body.count < file.count)
        #expect(whole.status == 200)
        #expect(whole.body == file)
        folder.remove()
    }

    /// Two clients reading one cold file at once: nginx sends its bytes once.
    @Test func aByteIsFetchedOnceForManyClients() async throws {
        let server = try server()
        let url = server.url(for: nginx.url("/slow/a.mp4"))!
        async let first = curl(url)
        async let second = curl(url)
        let (a, b) = try await (first, second)
        await server.stop()
        #expect(a.body == file && b.body == file)
        let sent = nginx.requests().filter { $0.uri == "/slow/a.mp4" }.reduce(0) { $0 + $1.bytesSent }
        #expect(sent < file.count + 4096)
        folder.remove()
    }
}
