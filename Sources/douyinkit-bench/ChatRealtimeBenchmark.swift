import DouyinBackendLauncher
import DouyinChat
import DouyinKit
import DouyinTestSupport
import Foundation

/// The realtime client's figures: (a) echo round trips per second over loopback `ws://` and
/// `wss://` (OpenSSL), the package's own client against Python websockets' own client on the
/// same echo servers, interleaved pairs; (b) the bytes permessage-deflate saves on the demo's
/// chat log pushed as GroupChat messages, with and without context takeover.
enum ChatRealtimeBenchmark {
    static let roundTrips = 2000

    static func run() async throws {
        let plain = try await WebSocketTestServer.shared.value()
        let secure = try SecureEchoServer()
        try await echo(label: "ws://", url: plain.url("/echo"), cafile: nil, transport: POSIXWebSocketTransport())
        try await echo(label: "wss://", url: secure.url, cafile: secure.caPath,
                       transport: POSIXWebSocketTransport(configuration: .init(trustedCertificates: try Data(contentsOf: URL(fileURLWithPath: secure.caPath)))))
        compression()
    }

    /// (a) for one scheme: seconds per `roundTrips` round trips of a 100-byte text message.
    static func echo(label: String, url: URL, cafile: String?, transport: POSIXWebSocketTransport) async throws {
        let python = try PythonClient(url: url, cafile: cafile)
        let connection = try await transport.connect(to: url, headers: [:])
        var messages = connection.messages.makeAsyncIterator()
        let text = String(repeating: "x", count: 100)
        let comparison = try await interleavedPairs(
            baseline: { try python.roundTrips(roundTrips) },
            subject: {
                try await timed {
                    for _ in 0..<roundTrips {
                        try await connection.send(text: text)
                        _ = try await messages.next()
                    }
                }
            })
        await connection.close(code: 1000, reason: "")
        let rate = { (seconds: Double) in fixed(Double(roundTrips) / seconds, 0) }
        print("chat (a): echo round trips over loopback \(label), \(roundTrips) × 100-byte text, own client vs Python websockets' client")
        print("  python websockets  median \(rate(comparison.medianBaseline)) round trips/s")
        print("  own client         median \(rate(comparison.medianSubject)) round trips/s")
        print("  throughput own / python: \(comparison.summary(.speedup))")
    }

    /// (b) the demo's chat log (the emotion benchmark's 1 MB log, one GroupChat JSON a line).
    static func compression() {
        let codec = EmotionCodec()
        let lines = ChatBenchmark.chatLog(bytes: 1 << 20, table: codec.table).split(separator: "\n")
        let messages: [[UInt8]] = lines.enumerated().map { index, line in
            let chat: [String: Any] = ["id": "m\(index)", "msg_type": "text", "msg_content": String(line), "create_time": 1_600_000_000 + index]
            return Array((try? JSONSerialization.data(withJSONObject: chat, options: [.sortedKeys])) ?? Data())
        }
        let raw = messages.reduce(0) { $0 + $1.count }
        print("chat (b): permessage-deflate on the demo's chat log, \(messages.count) GroupChat messages, \(raw) bytes of payload")
        for (name, reset) in [("context takeover (a server's default)", false), ("no context takeover (what the client sends)", true)] {
            guard let deflater = MessageDeflater(windowBits: 15, resetAfterMessage: reset) else { continue }
            let compressed = messages.reduce(0) { $0 + deflater.compress($1).count }
            print("  \(name): \(compressed) bytes, \(fixed(100 * (1 - Double(compressed) / Double(raw)), 1)) % saved")
        }
    }
}

/// `ws_bench_client.py` kept running: each call asks it for N round trips and reads its time.
final class PythonClient {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private let end: ProcessEnd

    init(url: URL, cafile: String?) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [fixtureURL("../scripts/servers/ws_bench_client.py").standardizedFileURL.path, url.absoluteString] + (cafile.map { ["--cafile", $0] } ?? [])
        process.standardInput = input
        process.standardOutput = output
        end = try process.runWithSignalsUnblocked()
        guard output.firstLine().hasPrefix("READY") else { throw ChatError.unsupported("ws_bench_client.py did not connect") }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        end.waitHere()
    }

    func roundTrips(_ count: Int) throws -> Double {
        input.fileHandleForWriting.write(Data("\(count)\n".utf8))
        guard let seconds = Double(output.firstLine().trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ChatError.unsupported("ws_bench_client.py stopped")
        }
        return seconds
    }
}

/// The wss:// echo server: throwaway certificates from ws_tls_certs.sh and ws_tls_server.py.
final class SecureEchoServer {
    let url: URL
    let caPath: String
    private let process = Process()
    private let input = Pipe()
    private let end: ProcessEnd

    init() throws {
        let scripts = fixtureURL("../scripts/servers").standardizedFileURL
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("douyin-bench-tls-\(UUID().uuidString)")
        let certs = Process()
        certs.executableURL = URL(fileURLWithPath: "/bin/sh")
        certs.arguments = [scripts.appendingPathComponent("ws_tls_certs.sh").path, directory.path]
        certs.standardOutput = FileHandle.nullDevice
        try certs.runWithSignalsUnblocked().waitHere()
        caPath = directory.appendingPathComponent("ca.pem").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [scripts.appendingPathComponent("ws_tls_server.py").path, "--dir", directory.path,
                             "--log", directory.appendingPathComponent("requests.log").path, "good"]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        end = try process.runWithSignalsUnblocked()
        let words = output.firstLine().split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let port = Int(words[1]) else { throw ChatError.unsupported("ws_tls_server.py did not start") }
        url = URL(string: "wss://127.0.0.1:\(port)/echo")!
    }

    deinit {
        try? input.fileHandleForWriting.close()
        end.waitHere()
    }
}
