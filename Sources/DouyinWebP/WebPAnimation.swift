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
    /// The last composited canvas, for sequential playback.
    private let last = Protected<(index: Int, pixels: [UInt8])?>(nil)

    /// Reads the frame index of a whole WebP file (animated or still, lossy or lossless).
    ///
    /// - Throws: ``WebPError`` for anything that is not a well-formed WebP within the limit.
    public init(data: Data, maxCanvasPixels: Int = WebPAnimation.defaultMaxCanvasPixels) throws(WebPError) {
        container = try LibWebPContainer(data: data, maxCanvasPixels: maxCanvasPixels)
        canvasWidth = container.canvasWidth
        canvasHeight = container.canvasHeight
        loopCount = container.loopCount
        backgroundColor = container.backgroundColor
        frames = container.frames
    }

    /// The whole canvas as it must look at frame `index`.
    public func frame(at index: Int) throws(WebPError) -> WebPCanvasFrame {
        guard frames.indices.contains(index) else { throw .frameIndexOutOfRange(index: index, count: frames.count) }
        var start = index
        while !frames[start].isKeyframe { start -= 1 }
        var canvas: [UInt8]
        if let previous = last.withLock({ $0 }), previous.index < index, previous.index >= start - 1 {
            canvas = previous.pixels
            start = previous.index + 1
        } else {
            canvas = []
        }
        var rectangle: [UInt8] = []
        for step in start...index {
            try composite(step, onto: &canvas, scratch: &rectangle)
        }
        let result = canvas
        last.withLock { $0 = (index, result) }
        return WebPCanvasFrame(index: index, width: canvasWidth, height: canvasHeight, duration: frames[index].displayDuration, premultipliedRGBA: result)
    }

    /// Applies frame `index` to the canvas holding frame `index - 1` (ignored for keyframes).
    private func composite(_ index: Int, onto canvas: inout [UInt8], scratch rectangle: inout [UInt8]) throws(WebPError) {
        let frame = frames[index]
        if frame.isKeyframe {
            canvas = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * 4)
        } else if frames[index - 1].disposesToBackground {
            clear(frames[index - 1], in: &canvas)
        }
        try container.decodeFrame(index, into: &rectangle)
        let blends = frame.blendsWithPrevious && !frame.isKeyframe
        let rowBytes = frame.width * 4
        canvas.withUnsafeMutableBufferPointer { target in
            rectangle.withUnsafeBufferPointer { source in
                for row in 0..<frame.height {
                    let to = ((frame.y + row) * canvasWidth + frame.x) * 4
                    let from = row * rowBytes
                    if !blends {
                        UnsafeMutableRawPointer(target.baseAddress! + to)
                            .copyMemory(from: source.baseAddress! + from, byteCount: rowBytes)
                        continue
                    }
                    for pixel in stride(from: 0, to: rowBytes, by: 4) {
                        let alpha = source[from + pixel + 3]
                        if alpha == 255 {
                            for channel in 0..<4 { target[to + pixel + channel] = source[from + pixel + channel] }
                        } else if alpha != 0 {
                            // Premultiplied "source over" in libwebp's integer form, src + dst × (256 − src
                            // alpha) / 256 per channel, so results match its decoder bit for bit.
                            let keep = UInt32(256 - Int(alpha))
                            for channel in 0..<4 {
                                let below = UInt32(target[to + pixel + channel])
                                target[to + pixel + channel] = source[from + pixel + channel] &+ UInt8((below * keep) >> 8)
                            }
                        }
                    }
                }
            }
        }
    }

    private func clear(_ frame: WebPFrameInfo, in canvas: inout [UInt8]) {
        for row in 0..<frame.height {
            let start = ((frame.y + row) * canvasWidth + frame.x) * 4
            canvas.replaceSubrange(start..<start + frame.width * 4, with: repeatElement(0, count: frame.width * 4))
        }
    }
}
