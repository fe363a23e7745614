import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit webp-frames")
struct WebPFramesVerbTests {
    @Test func writesEveryCanvasFrameAsPAM() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let result = try Tool.run(["webp-frames", Fixtures.url("webp/lossless-opaque.webp").path, "--out", folder.url.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "frames=6 width=48 height=32 loop=2\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(names == (0..<6).map { String(format: "frame-%03d.pam", $0) })
        // Lossless and opaque: every written frame is byte-for-byte its generator source.
        for index in 0..<6 {
            let written = try Data(contentsOf: folder.appending(names[index]))
            let source = try Fixtures.data("webp/frames/opaque-\(index).pam")
            #expect(written == source, "frame \(index)")
        }
    }

    @Test func badDataExitsOneWithAOneLineReason() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("bad.webp")
        try Fixtures.data("webp/muxed-alpha.webp").prefix(100).write(to: file)
        let result = try Tool.run(["webp-frames", file.path, "--out", folder.appending("out").path])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("not a valid WebP file"))
        #expect(try Tool.run(["webp-frames", file.path]).status == 2)
    }
}
