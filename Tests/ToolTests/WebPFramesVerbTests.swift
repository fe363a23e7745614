import CWebP
import DouyinTestSupport
import Foundation
import Testing

/// Every canvas of libwebp's `WebPAnimDecoder` in `MODE_RGBA` (straight alpha), the output
/// `webp-frames` must equal; `nil` when libwebp refuses the file.
private func libwebpStraightFrames(_ data: Data) -> [Data]? {
    data.withUnsafeBytes { raw -> [Data]? in
        var input = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
        options.color_mode = MODE_RGBA
        guard let decoder = WebPAnimDecoderNew(&input, &options) else { return nil }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { return nil }
        var frames: [Data] = []
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else { return nil }
            frames.append(Data(bytes: buffer, count: Int(info.canvas_width * info.canvas_height * 4)))
        }
        return frames
    }
}

@Suite("douyinkit webp-frames")
struct WebPFramesVerbTests {
    @Test func writesEveryCanvasFrameAsPAM() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let result = try await Tool.run(["webp-frames", Fixtures.url("webp/lossless-opaque.webp").path, "--out", folder.url.path])
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

    @Test("Regression: webp-frames divided premultiplied canvases back and lost the colour at low alpha")
    func framesEqualLibWebPStraightOutput() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for file in ["webp/low-alpha-lossy.webp", "webp/low-alpha-lossless.webp", "webp/muxed-alpha.webp"] {
            let expected = try #require(libwebpStraightFrames(try Fixtures.data(file)))
            let out = folder.appending(file.replacingOccurrences(of: "/", with: "-"))
            let result = try await Tool.run(["webp-frames", Fixtures.url(file).path, "--out", out.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("frames=\(expected.count) "))
            for (index, pixels) in expected.enumerated() {
                let written = try Data(contentsOf: out.appendingPathComponent(String(format: "frame-%03d.pam", index)))
                let body = try #require(written.range(of: Data("ENDHDR\n".utf8))).upperBound
                #expect(written[body...] == pixels, "\(file) frame \(index)")
            }
        }
    }

    @Test func badDataExitsOneWithAOneLineReason() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("bad.webp")
        try Fixtures.data("webp/muxed-alpha.webp").prefix(100).write(to: file)
        let result = try await Tool.run(["webp-frames", file.path, "--out", folder.appending("out").path])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("not a valid WebP file"))
        #expect(try await Tool.run(["webp-frames", file.path]).status == 2)
    }
}
