import CWebP
import DouyinKit
import Foundation

/// Compositing every frame through WebPAnimation against libwebp's own WebPAnimDecoder loop.
enum WebPBenchmark {
    static func run() throws {
        let folder = fixtureURL("webp/bench")
        let lossy = try (0..<4).map { try Data(contentsOf: folder.appendingPathComponent("cover-lossy-\($0).webp")) }
        let lossless = try Data(contentsOf: folder.appendingPathComponent("cover-lossless.webp"))
        print("webp (a): every frame of 9-frame 360×640 covers, one thread, best of 5")
        try allFrames(of: lossy, label: "4 lossy covers × 5", rounds: 5)
        try allFrames(of: [lossless], label: "1 lossless cover × 10", rounds: 10)
    }

    /// (a) One thread: WebPAnimation against a WebPAnimDecoder loop over the same bytes.
    static func allFrames(of covers: [Data], label: String, rounds: Int) throws {
        let baseline = bestTime(runs: 5) {
            for _ in 0..<rounds { for data in covers { blackHole(decodeWithAnimDecoder(data)) } }
        }
        let ours = try bestTime(runs: 5) {
            for _ in 0..<rounds {
                for data in covers {
                    let animation = try WebPAnimation(data: data)
                    for index in animation.frames.indices { blackHole(try animation.frame(at: index)) }
                }
            }
        }
        let frames = rounds * covers.count * 9
        print("  \(label): WebPAnimDecoder loop (baseline) \(fixed(baseline * 1000)) ms | WebPAnimation \(fixed(ours * 1000)) ms"
            + " (\(fixed(Double(frames) / ours, 0)) frames/s) | time ratio \(fixed(ours / baseline))× (target ≤ 1.10×)")
    }

    /// Decodes every frame with libwebp's animation decoder in MODE_rgbA; returns the frame count.
    static func decodeWithAnimDecoder(_ data: Data) -> Int {
        data.withUnsafeBytes { raw in
            var input = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return 0 }
            options.color_mode = MODE_rgbA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&input, &options) else { return 0 }
            defer { WebPAnimDecoderDelete(decoder) }
            var count = 0
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0 {
                count += 1
            }
            return count
        }
    }
}
