import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// `douyinkit video prefetch`: seconds of media, the variant under the cap, moov wherever it is.
@Suite("douyinkit video prefetch", .serialized)
struct VideoPrefetchVerbTests {
    @Test func aMasterPlaylistPrefetchesTheVariantUnderTheCapForTheSeconds() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await TestMedia.make(in: nginx.root)
        let master = nginx.url("/" + TestMedia.masterPlaylist).absoluteString
        let run = try await Tool.run(["video", "prefetch", master, "--dir", folder.url.path, "--seconds", "1.5", "--max-bandwidth", "700000"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        let base = "http://127.0.0.1:\(nginx.port)/"
        #expect(lines == ["master \(base)master.m3u8", "playlist \(base)v1/index.m3u8", "segment \(base)v1/seg000.ts", "segment \(base)v1/seg001.ts"])
        #expect(run.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix("source=network") })
        // No cap: the lowest variant; and what is held is reported as cached.
        let low = try await Tool.run(["video", "prefetch", master, "--dir", folder.url.path, "--seconds", "1"])
        #expect(low.stdout.contains("playlist \(base)v0/index.m3u8"))
        #expect(low.stdout.hasPrefix("master \(base)master.m3u8 bytes="))
        #expect(low.stdout.split(separator: "\n").first?.hasSuffix("source=cached") == true)
    }

    @Test func anFMP4PlaylistPrefetchesItsMapOnce() async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await TestMedia.make(in: nginx.root)
        let run = try await Tool.run(["video", "prefetch", nginx.url("/" + TestMedia.fmp4Playlist).absoluteString, "--dir", folder.url.path, "--seconds", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let kinds = run.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(kinds == ["playlist", "map", "segment", "segment"])
    }

    @Test(arguments: [TestMedia.faststartMP4, TestMedia.moovAtEndMP4])
    func anMP4PrefetchesItsMoovAndTheSecondsAtItsBitrate(_ path: String) async throws {
        let nginx = try await NginxOrigin.start()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await TestMedia.make(in: nginx.root)
        let url = nginx.url("/" + path)
        let run = try await Tool.run(["video", "prefetch", url.absoluteString, "--dir", folder.url.path, "--seconds", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("video \(url.absoluteString) bytes="))
        let file = try Data(contentsOf: nginx.root.appendingPathComponent(path))
        let boxes = try await MP4Layout.boxes(length: Int64(file.count)) { offset in file.subdata(in: Int(offset)..<min(file.count, Int(offset) + 16)) }
        let moov = try #require(boxes.first { $0.type == "moov" })
        let held = try VideoCache(directory: folder.url, sizeLimit: 1 << 30).cachedRanges(for: url)
        #expect(held.contains(moov.range))
        // About a quarter of the 4 s file's media, not all of it.
        #expect(held.byteCount < Int64(file.count) / 2)
        #expect(held.byteCount > Int64(file.count) / 5)
    }
}
