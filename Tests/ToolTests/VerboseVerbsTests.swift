import DouyinBackendLauncher
import DouyinTestSupport
import Foundation
import Testing

/// Issue 26 §3: `--verbose` reaches the proxy of `video serve` and the session of `feed
/// session` too; without it their stderr holds no log line.
@Suite("douyinkit --verbose on video serve and feed session", .serialized)
struct VerboseVerbsTests {
    @Test func videoServeLogsItsStartARefusalAndItsStop() async throws {
        try await withTemporaryDirectory { folder in
            let process = Process()
            process.executableURL = Tool.productsDirectory.appendingPathComponent("douyinkit")
            process.arguments = ["video", "serve", "--dir", folder.appending("c").path, "--verbose"]
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            let end = try await process.start()
            let line = try await onOwnThread { () -> String in
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let more = output.fileHandleForReading.availableData
                    if more.isEmpty { break }
                    bytes.append(more)
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            let base = try #require(URL(string: line.replacingOccurrences(of: "serving ", with: "").trimmingCharacters(in: .whitespacesAndNewlines)))
            let port = try #require(base.port)
            // A request without the token (and a Host without the port): refused, and said so.
            let answer = try await onOwnThread { loopbackExchange(port: port, "/nope") }
            #expect(answer?.status == "HTTP/1.1 403 Forbidden")
            process.terminate()
            let stderr = try await onOwnThread { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            await end.wait()
            #expect(process.terminationStatus == 0)
            let lines = stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("log: info DouyinVideoCache.VideoProxyServer: started port=\(port)"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("log: notice DouyinVideoCache.VideoProxyServer: request refused") && $0.contains("status=403") }, "\(lines)")
            #expect(lines.contains("log: info DouyinVideoCache.VideoProxyServer: stopped"), "\(lines)")
        }
    }

    @Test func feedSessionLogsTheSessionsDecisionsOnlyWithVerbose() async throws {
        let nginx = try await NginxOrigin.start()
        try nginx.serve(Data(repeating: 2, count: 200_000), at: "/v/0.mp4")
        try await withTemporaryDirectory { folder in
            let address = ["uri": "v0", "url_list": [nginx.url("/v/0.mp4").absoluteString]] as [String: Any]
            let aweme: [String: Any] = ["aweme_id": "1", "desc": "one", "video": ["play_addr": address, "duration": 1000] as [String: Any]]
            let feed = folder.appending("feed.json"), trace = folder.appending("trace.json")
            try JSONSerialization.data(withJSONObject: ["code": 0, "message": "", "data": [aweme]]).write(to: feed)
            try Data(#"{"swipes":[{"item":0,"watch_ms":300}]}"#.utf8).write(to: trace)
            let arguments = ["feed", "session", feed.path, "--trace", trace.path, "--policy", "adaptive"]

            let quiet = try await Tool.run(arguments + ["--dir", folder.appending("quiet").path])
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(!quiet.stderr.contains("log: "), "\(quiet.stderr)")

            let loud = try await Tool.run(arguments + ["--dir", folder.appending("loud").path, "--verbose"])
            #expect(loud.status == 0, "\(loud.stderr)")
            #expect(loud.stderr.contains("log: debug DouyinFeed.FeedSession: item shown index=0"), "\(loud.stderr)")
            #expect(loud.stderr.contains("log: debug DouyinVideoCache."), "the session's cache logs on the same hook: \(loud.stderr)")
            #expect(loud.stdout == quiet.stdout.replacingOccurrences(of: "quiet", with: "loud") || loud.stdout.split(separator: "\n").count == quiet.stdout.split(separator: "\n").count)
        }
    }
}
