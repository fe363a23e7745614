import DouyinTestSupport
import Foundation
import Testing

/// Issue 26 §3: `--verbose` prints the library's log events on stderr; without it nothing is.
@Suite("douyinkit --verbose")
struct VerboseTests {
    @Test func cacheGetPrintsTheDownloadOnlyWithVerbose() async throws {
        let origin = try await NginxOrigin.start()
        try origin.serve(Data(repeating: 9, count: 4_096), at: "/v.webp")
        try await withTemporaryDirectory { folder in
            let url = origin.url("/v.webp").absoluteString
            let quiet = try await Tool.run(["cache", "get", url, "--dir", folder.appending("quiet").path, "--out", folder.appending("q").path])
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(quiet.stderr == "source=network\n", "nothing but the verb's own line by default")

            let loud = try await Tool.run(["cache", "get", url, "--verbose", "--dir", folder.appending("loud").path, "--out", folder.appending("l").path])
            #expect(loud.status == 0, "\(loud.stderr)")
            let lines = loud.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("log: debug DouyinCache.Downloader: download started url=\(url)"), "\(lines)")
            #expect(lines.contains("log: info DouyinCache.Downloader: download ended bytes=4096 url=\(url)"), "\(lines)")
            #expect(lines.last == "source=network")
        }
    }
}
