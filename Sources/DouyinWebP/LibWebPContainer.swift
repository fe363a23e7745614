internal import CWebP
import Foundation

/// The one seam between DouyinWebP and libwebp: read the frame index of a container, and
/// decode one frame's rectangle as premultiplied RGBA. A second backend (ImageIO on iOS) only
/// has to provide these two.
struct LibWebPContainer: Sendable {
    let data: Data
    let canvasWidth: Int
    let canvasHeight: Int
    let loopCount: Int
    let backgroundColor: UInt32
    let frames: [WebPFrameInfo]
    /// Where each frame's bitstream (its ALPH + VP8/VP8L chunks) lies in `data`.
    let fragments: [Range<Int>]

    init(data: Data, maxCanvasPixels: Int) throws(WebPError) {
        self.data = data
        let parsed: Result<(Int, Int, Int, UInt32, [WebPFrameInfo], [Range<Int>]), WebPError> = data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return .failure(.invalidContainer) }
            var input = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: raw.count)
            guard let demux = WebPDemux(&input) else { return .failure(.invalidContainer) }
            defer { WebPDemuxDelete(demux) }
            let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            guard width > 0, height > 0 else { return .failure(.invalidContainer) }
            guard width * height <= maxCanvasPixels else {
                return .failure(.canvasTooLarge(width: width, height: height, limit: maxCanvasPixels))
            }
            var frames: [WebPFrameInfo] = []
            var fragments: [Range<Int>] = []
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else { return .failure(.noFrames) }
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                let index = frames.count
                let frame = WebPFrameInfo(
                    index: index,
                    x: Int(iterator.x_offset), y: Int(iterator.y_offset),
                    width: Int(iterator.width), height: Int(iterator.height),
                    fileDuration: Int(iterator.duration),
                    blendsWithPrevious: iterator.blend_method == WEBP_MUX_BLEND,
                    disposesToBackground: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND,
                    hasAlpha: iterator.has_alpha != 0,
                    isKeyframe: false
                )
                guard frame.width > 0, frame.height > 0, frame.x + frame.width <= width, frame.y + frame.height <= height else {
                    return .failure(.frameOutsideCanvas(index: index))
                }
                frames.append(frame)
                let start = UnsafeRawPointer(iterator.fragment.bytes!) - base
                fragments.append(start..<start + iterator.fragment.size)
            } while WebPDemuxNextFrame(&iterator) != 0
            let loop = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            let background = WebPDemuxGetI(demux, WEBP_FF_BACKGROUND_COLOR)
            let marked = WebPFrameInfo.markingKeyframes(frames, canvasWidth: width, canvasHeight: height)
            return .success((width, height, loop, background, marked, fragments))
        }
        (canvasWidth, canvasHeight, loopCount, backgroundColor, frames, fragments) = try parsed.get()
    }

    /// Decodes frame `index`'s rectangle into `output` (its width × height × 4 bytes, rgbA).
    func decodeFrame(_ index: Int, into output: inout [UInt8]) throws(WebPError) {
        let frame = frames[index]
        let size = frame.width * frame.height * 4
        // Reuse the caller's scratch buffer when it fits: WebPDecode writes every byte anyway.
        if output.count != size { output = [UInt8](repeating: 0, count: size) }
        let fragment = fragments[index]
        let decoded: Bool = data.withUnsafeBytes { raw in
            var config = WebPDecoderConfig()
            guard WebPInitDecoderConfig(&config) != 0 else { return false }
            return output.withUnsafeMutableBytes { pixels in
                config.output.colorspace = MODE_rgbA
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
                config.output.u.RGBA.stride = Int32(frame.width * 4)
                config.output.u.RGBA.size = pixels.count
                let bytes = raw.baseAddress!.advanced(by: fragment.lowerBound).assumingMemoryBound(to: UInt8.self)
                let status = WebPDecode(bytes, fragment.count, &config)
                WebPFreeDecBuffer(&config.output)
                // A bitstream whose size disagrees with the frame header would not fill the rectangle.
                return status == VP8_STATUS_OK && Int(config.output.width) == frame.width && Int(config.output.height) == frame.height
            }
        }
        guard decoded else { throw .frameDecodingFailed(index: index) }
    }
}
