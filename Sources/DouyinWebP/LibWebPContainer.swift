// The one place DouyinWebP names libwebp's module. On Apple hosts Package.swift depends on
// SDWebImage's libwebp-Xcode, whose `libwebp` module is libwebp built from source (its
// include/ folder holds webp/decode.h and webp/demux.h, the same declarations); on Linux it is
// the CWebP system-library target over Debian's libwebp-dev. Every libwebp call is in this file.
#if canImport(libwebp)
internal import libwebp
#else
internal import CWebP
#endif
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

    /// Reads the index of a whole file.
    init(data: Data, maxCanvasPixels: Int) throws(WebPError) {
        guard let whole = try Self(data: data, maxCanvasPixels: maxCanvasPixels, partial: false) else { throw .invalidContainer }
        self = whole
    }

    /// Reads the index of a whole file or, when `partial`, of the start of one still arriving:
    /// then only frames whose bytes are all there are listed, and `nil` means the header itself
    /// is not complete yet.
    init?(data: Data, maxCanvasPixels: Int, partial: Bool) throws(WebPError) {
        self.data = data
        typealias Parsed = (Int, Int, Int, UInt32, [WebPFrameInfo], [Range<Int>])
        let parsed: Result<Parsed?, WebPError> = data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return partial ? .success(nil) : .failure(.invalidContainer) }
            // libwebp takes a prefix of anything as a raw bitstream still arriving; a download
            // in progress must at least start like a WebP container.
            if partial && !Self.mayStartContainer(raw) { return .failure(.invalidContainer) }
            var input = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var state = WEBP_DEMUX_PARSE_ERROR
            guard let demux = partial ? WebPDemuxPartial(&input, &state) : WebPDemux(&input) else {
                return partial && state == WEBP_DEMUX_PARSING_HEADER ? .success(nil) : .failure(.invalidContainer)
            }
            defer { WebPDemuxDelete(demux) }
            if partial && state == WEBP_DEMUX_PARSING_HEADER { return .success(nil) }
            let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            guard width > 0, height > 0 else { return .failure(.invalidContainer) }
            guard width * height <= maxCanvasPixels else {
                return .failure(.canvasTooLarge(width: width, height: height, limit: maxCanvasPixels))
            }
            var frames: [WebPFrameInfo] = []
            var fragments: [Range<Int>] = []
            var iterator = WebPIterator()
            if WebPDemuxGetFrame(demux, 1, &iterator) != 0 {
                defer { WebPDemuxReleaseIterator(&iterator) }
                repeat {
                    if iterator.complete == 0 { break }
                    let index = frames.count
                    let frame = WebPFrameInfo(
                        index: index,
                        x: Int(iterator.x_offset), y: Int(iterator.y_offset),
                        width: Int(iterator.width), height: Int(iterator.height),
                        fileDuration: .milliseconds(Int(iterator.duration)),
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
            }
            if frames.isEmpty && !partial { return .failure(.noFrames) }
            let loop = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            let background = WebPDemuxGetI(demux, WEBP_FF_BACKGROUND_COLOR)
            let marked = WebPFrameInfo.markingKeyframes(frames, canvasWidth: width, canvasHeight: height)
            return .success((width, height, loop, background, marked, fragments))
        }
        guard let fields = try parsed.get() else { return nil }
        (canvasWidth, canvasHeight, loopCount, backgroundColor, frames, fragments) = fields
    }

    /// Whether `bytes` could be the start of a RIFF WebP container ("RIFF", size, "WEBP").
    private static func mayStartContainer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let expected: [(offset: Int, byte: UInt8)] = Array("RIFF".utf8.enumerated().map { ($0.offset, $0.element) })
            + "WEBP".utf8.enumerated().map { ($0.offset + 8, $0.element) }
        return expected.allSatisfy { $0.offset >= bytes.count || bytes[$0.offset] == $0.byte }
    }

    /// Decodes frame `index`'s rectangle into `output`, whose rows are `stride` bytes apart
    /// (RGBA in `mode`, 4 bytes a pixel). `output` must hold the whole rectangle.
    func decodeFrame(_ index: Int, mode: WebPAlphaMode, into output: UnsafeMutableRawBufferPointer, stride: Int) throws(WebPError) {
        let frame = frames[index]
        let fragment = fragments[index]
        let failure: WebPError? = data.withUnsafeBytes { raw in
            var config = WebPDecoderConfig()
            guard WebPInitDecoderConfig(&config) != 0 else { return .frameDecodingFailed(index: index, status: Int(VP8_STATUS_INVALID_PARAM.rawValue)) }
            config.output.colorspace = mode == .premultiplied ? MODE_rgbA : MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = output.count
            // Refuse before decoding a bitstream whose size disagrees with the frame header: it
            // would not fill the rectangle, or would write past it.
            let bytes = raw.baseAddress!.advanced(by: fragment.lowerBound).assumingMemoryBound(to: UInt8.self)
            let features = WebPGetFeatures(bytes, fragment.count, &config.input)
            guard features == VP8_STATUS_OK else { return .frameDecodingFailed(index: index, status: Int(features.rawValue)) }
            guard Int(config.input.width) == frame.width, Int(config.input.height) == frame.height else {
                return .frameSizeMismatch(index: index)
            }
            let status = WebPDecode(bytes, fragment.count, &config)
            WebPFreeDecBuffer(&config.output)
            return status == VP8_STATUS_OK ? nil : .frameDecodingFailed(index: index, status: Int(status.rawValue))
        }
        if let failure { throw failure }
    }
}
