import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Python WebSocket test server (Servers/ws_test_server.py on Debian's python3-websockets),
/// started on free loopback ports; stopped by closing its stdin.
final class WebSocketTestServer: @unchecked Sendable {
    // @unchecked: every stored property is set once in init; Process and Pipe are only read after.
    /// One server for the whole test run; it exits when the test process closes its stdin.
    static let shared = Result { try WebSocketTestServer() }

    let wsPort: Int
    let rawPort: Int
    private let process: Process
    private let input: Pipe

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Servers/ws_test_server.py")
        process = Process()
        // Debian's interpreter: the one on PATH may be another that cannot import python3-websockets.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count == 3, words[0] == "PORTS", let ws = Int(words[1]), let raw = Int(words[2]) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "ws_test_server.py did not start: \(String(decoding: line, as: UTF8.self))"])
        }
        wsPort = ws
        rawPort = raw
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    func url(_ path: String) -> URL { URL(string: "ws://127.0.0.1:\(wsPort)\(path)")! }
    func rawURL(_ path: String) -> URL { URL(string: "ws://127.0.0.1:\(rawPort)\(path)")! }

    /// The close code the client sent after the raw server's violation at `path` ("none" if none in 5 s).
    func lastClose(_ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(rawPort)/lastclose?path=\(path)")!)
        return String(decoding: data, as: UTF8.self)
    }
}
