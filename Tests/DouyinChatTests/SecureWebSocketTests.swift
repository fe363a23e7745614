import DouyinBackendLauncher
import DouyinChat
import DouyinTestSupport
import Foundation
import Testing

/// Throwaway certificates (scripts/servers/ws_tls_certs.sh, openssl at test time) and a wss://
/// server per certificate (scripts/servers/ws_tls_server.py: python3-websockets behind Python's
/// ssl), shared by the wss:// tests; it exits when the test process ends (its stdin closes).
final class TLSTestServer: @unchecked Sendable {
    // @unchecked: every stored property is set once in init.
    static let shared = StartedOnce { try TLSTestServer() }
    static let names = ["good", "wronghost", "expired", "selfsigned", "untrusted"]

    let directory: URL
    let ports: [String: Int]
    let log: URL
    private let process: Process
    private let input = Pipe()
    private let end: ProcessEnd

    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await TLSTestServer.shared.value()`")
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("douyin-tls-\(UUID().uuidString)")
        let scripts = Fixtures.packageRoot.appendingPathComponent("scripts/servers")
        let certs = Process()
        certs.executableURL = URL(fileURLWithPath: "/bin/sh")
        certs.arguments = [scripts.appendingPathComponent("ws_tls_certs.sh").path, directory.path]
        certs.standardOutput = FileHandle.nullDevice
        try certs.runWithSignalsUnblocked().waitHere()
        guard certs.terminationStatus == 0 else { throw ChatError.unsupported("ws_tls_certs.sh failed (is openssl installed?)") }
        log = directory.appendingPathComponent("requests.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [scripts.appendingPathComponent("ws_tls_server.py").path, "--dir", directory.path, "--log", log.path] + Self.names
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe.forwardedToStandardError()
        end = try process.runWithSignalsUnblocked()
        let words = output.firstLine().split(whereSeparator: \.isWhitespace)
        guard words.count == Self.names.count + 1, words[0] == "PORTS" else {
            process.terminate()
            throw ChatError.unsupported("ws_tls_server.py did not start")
        }
        ports = Dictionary(uniqueKeysWithValues: zip(Self.names, words.dropFirst().compactMap { Int($0) }))
    }

    deinit {
        try? input.fileHandleForWriting.close()
        end.waitHere()
    }

    /// `wss://<host>:<port of name><path>`.
    func url(_ name: String, _ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "wss://\(host):\(ports[name]!)\(path)")!
    }

    /// The test CA's PEM.
    var caPEM: Data { get throws { try Data(contentsOf: directory.appendingPathComponent("ca.pem")) } }

    /// The names whose server saw a request (a TLS session and a request line).
    func requested() throws -> Set<String> {
        Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }
}

@Suite("wss:// on the package's own client", .serialized)
struct SecureWebSocketTests {
    let server: TLSTestServer
    init() async throws { server = try await TLSTestServer.shared.value() }

    var trusting: POSIXWebSocketTransport {
        get throws { POSIXWebSocketTransport(configuration: .init(trustedCertificates: try server.caPEM)) }
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func aVerifiedServerEchoesTextAndBinary(host: String) async throws {
        let connection = try await trusting.connect(to: server.url("good", "/echo", host: host), headers: [:])
        var messages = connection.messages.makeAsyncIterator()
        try await connection.send(text: "你好 wss")
        try await connection.send(.binary(Data([0, 1, 2, 255])))
        let big = String(repeating: "载", count: 100_000)
        try await connection.send(text: big)
        #expect(try await messages.next() == .text("你好 wss"))
        #expect(try await messages.next() == .binary(Data([0, 1, 2, 255])))
        #expect(try await messages.next() == .text(big))
        try await connection.ping()
        await connection.close(code: 1000, reason: "")
    }

    /// Each bad certificate fails the one attempt with a typed error naming the verifier's
    /// reason, and the server never sees a request.
    @Test(arguments: [("wronghost", "mismatch"), ("expired", "expired"), ("selfsigned", "self-signed"), ("untrusted", "local issuer")])
    func aCertificateThatDoesNotVerifyFailsBeforeAnyRequest(name: String, reason: String) async throws {
        do {
            _ = try await trusting.connect(to: server.url(name, "/echo"), headers: [:])
            Issue.record("\(name): connected")
        } catch let error as ChatError {
            guard case .certificateRejected(let host, let why) = error else { Issue.record("\(name): \(error)"); return }
            #expect(host == "127.0.0.1")
            #expect(why.contains(reason), "\(name): \(why)")
        }
        #expect(try !server.requested().contains(name))
    }

    /// Without the test CA the system store does not know it: rejected too.
    @Test func theSystemStoreDoesNotTrustTheTestCA() async throws {
        await #expect {
            _ = try await POSIXWebSocketTransport().connect(to: server.url("good", "/echo"), headers: [:])
        } throws: { error in
            if case .certificateRejected? = error as? ChatError { true } else { false }
        }
    }

    /// The realtime connection gives up after the one attempt: no `waiting`, no retry.
    @Test func theConnectionGivesUpOnABadCertificateWithoutRetrying() async throws {
        let connection = ChatConnection(url: server.url("selfsigned", "/push?count=1"), udid: nil, transport: try trusting)
        connection.start()
        var states: [String] = []
        for await event in connection.events {
            if case .state(let state) = event { states.append("\(state)") }
        }
        #expect(states == ["connecting", "gave-up"])
    }

    @Test func chatListenOverWSSPrintsThePushedMessages() async throws {
        let ca = server.directory.appendingPathComponent("ca.pem").path
        let result = try await Tool.run(["chat", "listen", server.url("good", "/push?count=2&name=wss&prefix=s").absoluteString,
                                         "--cacert", ca, "--count", "2", "--timeout", "60"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "s0 text message 0 [微笑]\ns1 text message 1 [微笑]\n")
    }

    @Test func wsEchoOverWSSExitsZeroAfterTheServersCloseAndOneOnABadCertificate() async throws {
        let ca = server.directory.appendingPathComponent("ca.pem").path
        let good = try await Tool.run(["ws", "echo", server.url("good", "/close?code=1000").absoluteString, "--cacert", ca, "--timeout", "60"])
        #expect(good.status == 0, "\(good.stderr)")
        let bad = try await Tool.run(["ws", "echo", server.url("expired", "/echo").absoluteString, "--cacert", ca, "--timeout", "60"])
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("error: the TLS certificate of 127.0.0.1 did not verify: certificate has expired"), "\(bad.stderr)")
    }
}
