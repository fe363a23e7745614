import CWebP
import DouyinWebP
import Foundation

/// libwebp's own animation decoder: the reference the compositor must match, in `MODE_rgbA`
/// for premultiplied canvases and `MODE_RGBA` for straight ones.
enum ReferenceDecoder {
    /// Every canvas `WebPAnimDecoder` produces, or `nil` when it refuses the file or a frame.
    static func frames(of data: Data, mode: WebPAlphaMode = .premultiplied) -> [[UInt8]]? {
        guard !data.isEmpty else { return nil }
        return data.withUnsafeBytes { raw -> [[UInt8]]? in
            var input = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
            options.color_mode = mode == .premultiplied ? MODE_rgbA : MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&input, &options) else { return nil }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { return nil }
            let size = Int(info.canvas_width * info.canvas_height * 4)
            var frames: [[UInt8]] = []
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var buffer: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else { return nil }
                frames.append(Array(UnsafeBufferPointer(start: buffer, count: size)))
            }
            return frames
        }
    }
}

/// Reads the RGBA pixels of a PAM file written by Fixtures/webp/generate.py.
func pamPixels(_ data: Data) -> [UInt8] {
    let marker = Data("ENDHDR\n".utf8)
    guard let end = data.range(of: marker) else { return [] }
    return [UInt8](data[end.upperBound...])
}

/// Every fixture the compositor is compared on, in both alpha modes.
enum WebPCorpus {
    static let animations = [
        "webp/muxed-alpha.webp", "webp/lossless-opaque.webp",
        "webp/covers/cover-0.webp", "webp/covers/cover-1.webp", "webp/covers/cover-2.webp",
        "webp/bench/cover-lossy-0.webp", "webp/bench/cover-lossless.webp", "webp/long-200.webp",
        "webp/low-alpha-lossy.webp", "webp/low-alpha-lossless.webp", "webp/low-alpha-img2webp.webp",
        "webp/tiny/animated-icc-xmp.webp",
    ]
    static let stills = [
        "webp/still-lossy.webp", "webp/still-lossy-alpha.webp", "webp/still-lossless-alpha.webp",
        "webp/tiny/one-lossless-alpha.webp", "webp/tiny/one-lossy-alpha.webp", "webp/tiny/one-lossless-opaque.webp",
        "webp/tiny/row-13x1-lossy-alpha.webp", "webp/tiny/row-13x1-lossless.webp", "webp/tiny/still-icc-exif-xmp.webp",
    ]
    static let all = animations + stills
    /// Small files whose every truncation and overwritten byte is tried.
    static let small = [
        "webp/muxed-alpha.webp", "webp/still-lossy-alpha.webp", "webp/tiny/one-lossless-alpha.webp",
        "webp/tiny/one-lossy-alpha.webp", "webp/tiny/row-13x1-lossy-alpha.webp", "webp/tiny/animated-icc-xmp.webp",
        "webp/tiny/still-icc-exif-xmp.webp",
    ]
}
