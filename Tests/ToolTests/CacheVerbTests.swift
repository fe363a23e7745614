import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit cache get")
struct CacheVerbTests {
    @Test func networkThenDiskWithTheSameBytes() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        try origin.serve(body, at: "/a.webp")
        let out = folder.appending("out.webp").path
        let dir = folder.appending("cache").path
        let first = try Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("source=network"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == body)
        let second = try Tool.run(["cache", "get", origin.url("/a.webp").absoluteString, "--dir", dir])
        #expect(second.stderr.contains("source=disk"))
        #expect(second.output == body)
        #expect(origin.requests().count == 1)
    }

    @Test func errorsExitOne() throws {
        let origin = try NginxOrigin()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = try Tool.run(["cache", "get", origin.url("/missing").absoluteString, "--dir", folder.url.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("HTTP 404"))
        #expect(try Tool.run(["cache", "get", "not a url", "--dir", folder.url.path]).status == 2)
        #expect(try Tool.run(["cache", "get", origin.url("/x").absoluteString]).status == 2)
    }
}
