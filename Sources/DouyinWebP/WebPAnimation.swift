import DouyinSupport
import Foundation

/// One composited frame: the whole canvas as it must look at that frame.
public struct WebPCanvasFrame: Sendable, Hashable {
    /// The frame's number, from 0.
    public var index: Int
    /// Canvas width in pixels.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// How long to show it, in milliseconds (see ``WebPFrameInfo/displayDuration``).
    public var duration: Int
    /// Row-major 8-bit RGBA, **premultiplied** by alpha (what Core Graphics and most GPUs want,
    /// and what libwebp's own animation decoder produces in `MODE_rgbA`).
    public var premultipliedRGBA: [UInt8]

    /// The pixels as straight (not premultiplied) RGBA: each colour channel divided by alpha,
    /// rounded to nearest; fully transparent pixels are all zero.
    public func straightRGBA() -> [UInt8] {
        var out = premultipliedRGBA
        for offset in stride(from: 0, to: out.count, by: 4) {
            let alpha = Int(out[offset + 3])
            if alpha == 255 { continue }
            for channel in 0..<3 {
                out[offset + channel] = alpha == 0 ? 0 : UInt8(min(255, (Int(out[offset + channel]) * 255 + alpha / 2) / alpha))
            }
        }
        return out
    }
}

/// An animated (or still) WebP file: its frame index, read once, and any composited frame on
/// demand.
///
/// Compositing follows the WebP container rules in premultiplied alpha with libwebp's integer
/// blend, so frames equal libwebp's `WebPAnimDecoder` output to the pixel. The background
/// colour is ignored (canvases start transparent), as libwebp and browsers do.
///
/// Random access composes from the nearest keyframe at or before the frame asked for;
/// asking for the next frame after the last one reuses that canvas, one frame decode per step.
public final class WebPAnimation: Sendable {
    /// Canvas width in pixels.
    public let canvasWidth: Int
    /// Canvas height in pixels.
    public let canvasHeight: Int
    /// How many times to play; 0 means forever. 0 for stills.
    public let loopCount: Int
    /// The file's background colour as `0xAARRGGBB`; informational only, see the type's notes.
    public let backgroundColor: UInt32
    /// Every frame's rectangle, timing, blending, disposal and keyframe flag.
    public let frames: [WebPFrameInfo]

    /// The largest canvas decoded by default: 16.7 M pixels (64 MB of RGBA), so a tiny file
    /// declaring a huge canvas is refused before anything is allocated.
    public static let defaultMaxCanvasPixels = 4096 * 4096

    private let container: LibWebPContainer
    /// The last composited canvas, for sequential playback. Taken out while a frame is being
    /// composited, so the next frame is drawn in place when nobody else holds that canvas.
    private let last = LockedBox<(index: Int, pixels: [UInt8])?>(nil)
    /// The buffer blended frames are decoded into, kept between frames; taken out while in use.
    private let scratch = LockedBox<[UInt8]>([])

    /// Reads the frame index of a whole WebP file (animated or still, lossy or lossless).
    ///
    /// - Throws: ``WebPError`` for anything that is not a well-formed WebP within the limit.
    public convenience init(data: Data, maxCanvasPixels: Int = WebPAnimation.defaultMaxCanvasPixels) throws(WebPError) {
        self.init(container: try LibWebPContainer(data: data, maxCanvasPixels: maxCanvasPixels))
    }

    private init(container: LibWebPContainer) {
        self.container = container
        canvasWidth = container.canvasWidth
        canvasHeight = container.canvasHeight
        loopCount = container.loopCount
        backgroundColor = container.backgroundColor
        frames = container.frames
    }

    /// The first frame of a file still downloading, as soon as its bytes are all there (about
    /// a tenth of a typical cover); `nil` until then.
    ///
    /// - Throws: ``WebPError`` when the bytes so far already cannot be a WebP within the limit.
    public static func firstFrame(ofPartialData data: Data, maxCanvasPixels: Int = WebPAnimation.defaultMaxCanvasPixels) throws(WebPError) -> WebPCanvasFrame? {
        guard let container = try LibWebPContainer(data: data, maxCanvasPixels: maxCanvasPixels, partial: true),
              !container.frames.isEmpty else { return nil }
        return try WebPAnimation(container: container).frame(at: 0)
    }

    /// Bytes of one composited canvas (width × height × 4).
    public var canvasByteCount: Int { canvasWidth * canvasHeight * 4 }

    /// The whole canvas as it must look at frame `index`.
    public func frame(at index: Int) throws(WebPError) -> WebPCanvasFrame {
        guard frames.indices.contains(index) else { throw .frameIndexOutOfRange(index: index, count: frames.count) }
        var start = index
        while !frames[start].isKeyframe { start -= 1 }
        let previous = last.withLock { held in
            defer { held = nil }
            return held
        }
        var canvas: [UInt8]
        if let previous, previous.index < index, previous.index >= start - 1 {
            canvas = previous.pixels
            start = previous.index + 1
        } else {
            canvas = previous?.pixels ?? []
            if canvas.count != canvasByteCount { canvas = [UInt8](repeating: 0, count: canvasByteCount) }
        }
        var rectangle = scratch.withLock { held in
            defer { held = [] }
            return held
        }
        defer { scratch.withLock { $0 = rectangle } }
        for step in start...index {
            try composite(step, onto: &canvas, scratch: &rectangle)
        }
        last.withLock { $0 = (index, canvas) }
        return WebPCanvasFrame(index: index, width: canvasWidth, height: canvasHeight, duration: frames[index].displayDuration, premultipliedRGBA: canvas)
    }

    /// Applies frame `index` to the canvas holding frame `index - 1` (ignored for keyframes).
    private func composite(_ index: Int, onto canvas: inout [UInt8], scratch rectangle: inout [UInt8]) throws(WebPError) {
        let frame = frames[index]
        let canvasStride = canvasWidth * 4
        let origin = frame.y * canvasStride + frame.x * 4
        if frame.isKeyframe {
            // A keyframe starts from a transparent canvas, unless it paints every pixel itself.
            if !(frame.coversCanvas(width: canvasWidth, height: canvasHeight) && !frame.blendsWithPrevious) {
                canvas.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            }
        } else if frames[index - 1].disposesToBackground {
            clear(frames[index - 1], in: &canvas)
        }
        if !frame.blendsWithPrevious || frame.isKeyframe {
            // Nothing below shows through: decode straight onto the canvas.
            try canvas.withUnsafeMutableBytes { pixels in
                Result { () throws(WebPError) in
                    try container.decodeFrame(index, into: UnsafeMutableRawBufferPointer(rebasing: pixels[origin...]), stride: canvasStride)
                }
            }.get()
            return
        }
        let rowBytes = frame.width * 4
        if rectangle.count < rowBytes * frame.height { rectangle = [UInt8](repeating: 0, count: rowBytes * frame.height) }
        try rectangle.withUnsafeMutableBytes { pixels in
            Result { () throws(WebPError) in try container.decodeFrame(index, into: pixels, stride: rowBytes) }
        }.get()
        canvas.withUnsafeMutableBytes { target in
            rectangle.withUnsafeBytes { source in
                for row in 0..<frame.height {
                    Self.blendRow(
                        source.baseAddress!.advanced(by: row * rowBytes).assumingMemoryBound(to: UInt32.self),
                        over: target.baseAddress!.advanced(by: origin + row * canvasStride).assumingMemoryBound(to: UInt32.self),
                        count: frame.width
                    )
                }
            }
        }
    }

    /// Premultiplied "source over" in libwebp's integer form, src + dst × (256 − src alpha) / 256
    /// on each channel, two channels a multiply, so results match its decoder bit for bit.
    @inline(__always)
    private static func blendRow(_ source: UnsafePointer<UInt32>, over target: UnsafeMutablePointer<UInt32>, count: Int) {
        for pixel in 0..<count {
            let src = UInt32(littleEndian: source[pixel])
            let alpha = src >> 24
            if alpha == 255 {
                target[pixel] = source[pixel]
            } else if alpha != 0 {
                let dst = UInt32(littleEndian: target[pixel])
                let keep = 256 - alpha
                let redBlue = ((dst & 0x00FF_00FF) &* keep) >> 8 & 0x00FF_00FF
                let greenAlpha = ((dst >> 8) & 0x00FF_00FF) &* keep & 0xFF00_FF00
                target[pixel] = (src &+ redBlue &+ greenAlpha).littleEndian
            }
        }
    }

    private func clear(_ frame: WebPFrameInfo, in canvas: inout [UInt8]) {
        let canvasStride = canvasWidth * 4
        canvas.withUnsafeMutableBytes { pixels in
            for row in 0..<frame.height {
                let start = (frame.y + row) * canvasStride + frame.x * 4
                _ = UnsafeMutableRawBufferPointer(rebasing: pixels[start..<start + frame.width * 4]).initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
    }
}
