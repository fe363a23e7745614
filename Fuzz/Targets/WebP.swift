// DouyinWebP's animated WebP decoding (libwebp's demuxer and decoder behind it). Property: every
// input ends in frames or a WebPError, never a trap; sequential and random access agree on
// which frames decode.
@testable import DouyinWebP
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func webPFuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    // A 1-megapixel limit keeps each run fast; larger canvases take the same code paths.
    let limit = 1 << 20
    if let animation = try? WebPAnimation(data: data, maxCanvasPixels: limit) {
        // In order (the sequential path), then the last again from its keyframe (random access).
        for index in animation.frames.indices {
            if (try? animation.frame(at: index)) == nil { break }
        }
        _ = try? WebPAnimation(data: data, maxCanvasPixels: limit).frame(at: animation.frames.count - 1)
    }
    _ = try? WebPAnimation.firstFrame(ofPartialData: data.prefix(count / 2), maxCanvasPixels: limit)
    return 0
}
