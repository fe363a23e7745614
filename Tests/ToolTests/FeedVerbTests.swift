import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit feed preload", .serialized)
struct FeedVerbTests {
    /// nginx serving the files Fixtures/feed/feed.json names, and that feed pointed at it.
    static func origin(in folder: TemporaryDirectory) async throws -> (NginxOrigin, String) {
        let nginx = try await NginxOrigin.start()
        for index in 0..<6 {
            try nginx.serve(Fixtures.data(index % 2 == 0 ? "video/clip.mp4" : "feed/moov-at-end.mp4"), at: "/videos/v\(index).mp4")
            try nginx.serve(Fixtures.data("webp/covers/cover-\(index % 3).webp"), at: "/covers/c\(index).webp")
            try nginx.serve(Data(repeating: UInt8(index), count: 1_000 + index), at: "/avatars/a\(index).jpeg")
        }
        let text = try String(contentsOf: Fixtures.url("feed/feed.json"), encoding: .utf8)
            .replacingOccurrences(of: "http://origin.invalid", with: "http://127.0.0.1:\(nginx.port)")
        let feed = folder.appending("feed.json")
        try Data(text.utf8).write(to: feed)
        return (nginx, feed.path)
    }

    @Test func warmsTheWindowAndALaterVideoGetReadsNoOriginByte() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (nginx, feed) = try await Self.origin(in: folder)
        let dir = folder.appending("cache").path
        let base = "http://127.0.0.1:\(nginx.port)"

        // Given item 2 with 3 ahead and 1 behind: videos of 3, 1, 4, 5; images of 1…5.
        let first = try await Tool.run(["feed", "preload", feed, "--index", "2", "--dir", dir, "--bytes", "100000"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.split(separator: "\n").map(String.init) == [
            "cover 2 \(base)/covers/c2.webp bytes=15926 source=network",
            "avatar 2 \(base)/avatars/a2.jpeg bytes=1002 source=network",
            "video 3 \(base)/videos/v3.mp4 bytes=100000 source=network",
            "cover 3 \(base)/covers/c3.webp bytes=17812 source=network",
            "avatar 3 \(base)/avatars/a3.jpeg bytes=1003 source=network",
            "video 1 \(base)/videos/v1.mp4 bytes=100000 source=network",
            "cover 1 \(base)/covers/c1.webp bytes=16844 source=network",
            "avatar 1 \(base)/avatars/a1.jpeg bytes=1001 source=network",
            "video 4 \(base)/videos/v4.mp4 bytes=100000 source=network",
            "cover 4 \(base)/covers/c4.webp bytes=16844 source=network",
            "avatar 4 \(base)/avatars/a4.jpeg bytes=1004 source=network",
            "video 5 \(base)/videos/v5.mp4 bytes=100000 source=network",
            "cover 5 \(base)/covers/c5.webp bytes=15926 source=network",
            "avatar 5 \(base)/avatars/a5.jpeg bytes=1005 source=network",
        ])
        let videoRequests = nginx.requests().filter { $0.uri.hasPrefix("/videos/") }
        #expect(Set(videoRequests.map(\.uri)) == ["/videos/v1.mp4", "/videos/v3.mp4", "/videos/v4.mp4", "/videos/v5.mp4"])
        #expect(videoRequests.allSatisfy { $0.range == "bytes=0-99999" }, "exactly the first B bytes: \(videoRequests)")

        // When run again: every resource is held, nothing is fetched.
        let before = nginx.requests().count
        let second = try await Tool.run(["feed", "preload", feed, "--index", "2", "--dir", dir, "--bytes", "100000"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.split(separator: "\n").count == 14)
        #expect(second.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix("source=cached") }, "\(second.stdout)")
        #expect(nginx.requests().count == before)

        // Then `video get` of those bytes through <dir>/video reads no origin byte.
        let out = folder.appending("v3.bin").path
        let get = try await Tool.run(["video", "get", "\(base)/videos/v3.mp4", "--range", "0-99999", "--dir", dir + "/video", "--out", out])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stderr.contains("origin_bytes=0 cached_bytes=100000"), "\(get.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Fixtures.data("feed/moov-at-end.mp4").prefix(100_000))
        #expect(nginx.requests().count == before)
    }

    @Test func defaultBytesAre819200() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (nginx, feed) = try await Self.origin(in: folder)
        let result = try await Tool.run(["feed", "preload", feed, "--index", "0", "--dir", folder.appending("c").path, "--ahead", "1", "--behind", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("video ") }.count == 1)
        // moov-at-end.mp4 is shorter than 819,200 bytes: all of it is held.
        #expect(lines.contains { $0.hasPrefix("video 1 ") && $0.hasSuffix("bytes=259395 source=network") }, "\(result.stdout)")
        #expect(nginx.requests().filter { $0.uri.hasPrefix("/videos/") }.map(\.range) == ["bytes=0-819199"])
    }

    @Test func badArgumentsExitWithAReason() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (_, feed) = try await Self.origin(in: folder)
        let outside = try await Tool.run(["feed", "preload", feed, "--index", "6", "--dir", folder.url.path])
        #expect(outside.status == 1 && outside.stderr.contains("--index 6"))
        let usage = try await Tool.run(["feed", "preload", feed, "--dir", folder.url.path])
        #expect(usage.status == 2)
        let negative = try await Tool.run(["feed", "preload", feed, "--index", "0", "--dir", folder.url.path, "--bytes", "0"])
        #expect(negative.status == 2 && negative.stderr.contains("--bytes"))
        let missing = try await Tool.run(["feed", "preload", folder.appending("nope.json").path, "--index", "0", "--dir", folder.url.path])
        #expect(missing.status == 1 && missing.stderr.contains("nope.json"))
    }
}
