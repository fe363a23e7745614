import CWebP
import Foundation

/// libwebp's own animation decoder, in `MODE_rgbA`: the reference the compositor must match.
enum ReferenceDecoder {
    static func frames(of data: Data) -> [[UInt8]]? {
        data.withUnsafeBytes { raw -> [[UInt8]]? in
            var input = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
            options.color_mode = MODE_rgbA
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
