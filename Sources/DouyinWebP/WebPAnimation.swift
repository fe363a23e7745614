import DouyinSupport
import Foundation

/// An animated (or still) WebP file: its frame index, read once, and any composited frame on
/// demand.
///
/// Compositing follows the WebP container rules with libwebp's integer blends, so frames equal
/// libwebp's `WebPAnimDecoder` output to the byte, in either ``WebPAlphaMode``: premultiplied
/// (its `MODE_rgbA`, the default, for display) or straight (its `MODE_RGBA`, for image files).
/// The mode is chosen per animation (``alphaMode``) or per call (``frame(at:alphaMode:)``).
/// The background colour is ignored (canvases start transparent), as libwebp and browsers do.
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
    /// How ``frame(at:)`` stores alpha; `.premultiplied` unless the initializer was told otherwise.
    public let alphaMode: WebPAlphaMode

    /// The largest canvas decoded by default: 16.7 M pixels (64 MB of RGBA), so a tiny file
    /// declaring a huge canvas is refused before anything is allocated.
    public static let defaultMaxCanvasPixels = 4096 * 4096

    private let container: LibWebPContainer
    /// The last composited canvas, for sequential playback. Taken out while a frame is being
    /// composited, so the next frame is drawn in place when nobody else holds that canvas.
    private let last = LockedBox<(index: Int, mode: WebPAlphaMode, pixels: [UInt8])?>(nil)
    /// The buffer blended frames are decoded into, kept between frames; taken out while in use.
    private let scratch = LockedBox<[UInt8]>([])

    /// Reads the frame index of a whole WebP file (animated or still, lossy or lossless).
    ///
    /// - Parameters:
    ///   - data: the whole file's bytes.
    ///   - maxCanvasPixels: the largest canvas accepted, in pixels; ``defaultMaxCanvasPixels`` by default.
    ///   - alphaMode: how ``frame(at:)`` stores alpha; `.premultiplied` by default.
    /// - Throws: ``WebPError`` for anything that is not a well-formed WebP within the limit.
    public convenience init(data: Data, maxCanvasPixels: Int = WebPAnimation.defaultMaxCanvasPixels,
                            alphaMode: WebPAlphaMode = .premultiplied) throws(WebPError) {
        self.init(container: try LibWebPContainer(data: data, maxCanvasPixels: maxCanvasPixels), alphaMode: alphaMode)
    }

    private init(container: LibWebPContainer, alphaMode: WebPAlphaMode) {
        self.container = container
        self.alphaMode = alphaMode
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
    public static func firstFrame(ofPartialData data: Data, maxCanvasPixels: Int = WebPAnimation.defaultMaxCanvasPixels,
                                  alphaMode: WebPAlphaMode = .premultiplied) throws(WebPError) -> WebPCanvasFrame? {
        guard let container = try LibWebPContainer(data: data, maxCanvasPixels: maxCanvasPixels, partial: true),
              !container.frames.isEmpty else { return nil }
        return try WebPAnimation(container: container, alphaMode: alphaMode).frame(at: 0)
    }

    /// Bytes of one composited canvas (width × height × 4).
    public var canvasByteCount: Int { canvasWidth * canvasHeight * 4 }

    /// The whole canvas as it must look at frame `index`, in the animation's ``alphaMode``.
    public func frame(at index: Int) throws(WebPError) -> WebPCanvasFrame {
        try frame(at: index, alphaMode: alphaMode)
    }

    /// The whole canvas as it must look at frame `index`, in `alphaMode`.
    ///
    /// Sequential playback reuses the last canvas only when it is in the same mode, so mixing
    /// modes on one animation is correct but composes from the keyframe each time it switches.
    public func frame(at index: Int, alphaMode mode: WebPAlphaMode) throws(WebPError) -> WebPCanvasFrame {
        guard frames.indices.contains(index) else { throw .frameIndexOutOfRange(index: index, count: frames.count) }
        var start = index
        while !frames[start].isKeyframe { start -= 1 }
        let previous = last.withLock { held in
            defer { held = nil }
            return held
        }
        var canvas: [UInt8]
        if let previous, previous.mode == mode, previous.index < index, previous.index >= start - 1 {
            canvas = previous.pixels
            start = previous.index + 1
        } else {
            canvas = previous?.pixels ?? []
            if canvas.count != canvasByteCount {
                // A keyframe that paints every pixel itself needs no zeroed canvas: no memset,
                // and each page is touched once, by the decode (a failed decode throws before
                // the canvas is kept or returned, so its unwritten bytes are never seen).
                let first = frames[start]
                if first.coversCanvas(width: canvasWidth, height: canvasHeight) && !first.blendsWithPrevious {
                    canvas = [UInt8](unsafeUninitializedCapacity: canvasByteCount) { _, count in count = canvasByteCount }
                } else {
                    canvas = [UInt8](repeating: 0, count: canvasByteCount)
                }
            }
        }
        var rectangle = scratch.withLock { held in
            defer { held = [] }
            return held
        }
        defer { scratch.withLock { $0 = rectangle } }
        for step in start...index {
            try composite(step, mode: mode, onto: &canvas, scratch: &rectangle)
        }
        last.withLock { $0 = (index, mode, canvas) }
        return WebPCanvasFrame(index: index, width: canvasWidth, height: canvasHeight, duration: frames[index].displayDuration,
                               alphaMode: mode, rgba: canvas)
    }

    /// Applies frame `index` to the canvas holding frame `index - 1` (ignored for keyframes).
    private func composite(_ index: Int, mode: WebPAlphaMode, onto canvas: inout [UInt8], scratch rectangle: inout [UInt8]) throws(WebPError) {
        let frame = frames[index]
        let canvasStride = canvasWidth * 4
        let origin = frame.y * canvasStride + frame.x * 4
        var cleared: WebPFrameInfo?
        if frame.isKeyframe {
            // A keyframe starts from a transparent canvas, unless it paints every pixel itself.
            if !(frame.coversCanvas(width: canvasWidth, height: canvasHeight) && !frame.blendsWithPrevious) {
                canvas.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            }
        } else if frames[index - 1].disposesToBackground {
            cleared = frames[index - 1]
            clear(frames[index - 1], in: &canvas)
        }
        if !frame.blendsWithPrevious || frame.isKeyframe {
            // Nothing below shows through: decode straight onto the canvas.
            try canvas.withUnsafeMutableBytes { pixels in
                Result { () throws(WebPError) in
                    try container.decodeFrame(index, mode: mode, into: UnsafeMutableRawBufferPointer(rebasing: pixels[origin...]), stride: canvasStride)
                }
            }.get()
            return
        }
        let rowBytes = frame.width * 4
        if rectangle.count < rowBytes * frame.height { rectangle = [UInt8](repeating: 0, count: rowBytes * frame.height) }
        try rectangle.withUnsafeMutableBytes { pixels in
            Result { () throws(WebPError) in try container.decodeFrame(index, mode: mode, into: pixels, stride: rowBytes) }
        }.get()
        canvas.withUnsafeMutableBytes { target in
            rectangle.withUnsafeBytes { source in
                for row in 0..<frame.height {
                    let from = source.baseAddress!.advanced(by: row * rowBytes).assumingMemoryBound(to: UInt32.self)
                    let to = target.baseAddress!.advanced(by: origin + row * canvasStride).assumingMemoryBound(to: UInt32.self)
                    // Where the previous frame was just cleared, nothing shows through: libwebp
                    // copies the decoded pixels there instead of blending them over transparent
                    // black, which in straight alpha would round the colour down.
                    let copied = cleared.map { Self.overlap(of: $0, withRow: frame.y + row, from: frame.x, count: frame.width) } ?? 0..<0
                    for span in [0..<copied.lowerBound, copied, copied.upperBound..<frame.width] where !span.isEmpty {
                        if span == copied {
                            (to + span.lowerBound).update(from: from + span.lowerBound, count: span.count)
                        } else if mode == .premultiplied {
                            Self.blendPremultipliedRow(from + span.lowerBound, over: to + span.lowerBound, count: span.count)
                        } else {
                            Self.blendStraightRow(from + span.lowerBound, over: to + span.lowerBound, count: span.count)
                        }
                    }
                }
            }
        }
    }

    /// The pixels of canvas row `row` that `cleared`'s rectangle covers, as offsets into the
    /// `count` pixels starting at column `x`; an empty range when it covers none.
    private static func overlap(of cleared: WebPFrameInfo, withRow row: Int, from x: Int, count: Int) -> Range<Int> {
        guard row >= cleared.y, row < cleared.y + cleared.height else { return 0..<0 }
        let lower = max(cleared.x, x) - x
        let upper = min(cleared.x + cleared.width, x + count) - x
        return lower < upper ? lower..<upper : 0..<0
    }

    /// Premultiplied "source over" in libwebp's integer form, src + dst × (256 − src alpha) / 256
    /// on each channel, two channels a multiply, so results match its decoder bit for bit.
    @inline(__always)
    private static func blendPremultipliedRow(_ source: UnsafePointer<UInt32>, over target: UnsafeMutablePointer<UInt32>, count: Int) {
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

    /// Straight-alpha "source over" with libwebp's non-premultiplied integer arithmetic, so
    /// results match its `MODE_RGBA` decoder bit for bit: the destination's weight is
    /// dst alpha × (256 − src alpha) / 256, the result's alpha src alpha + that weight, and each
    /// channel the weighted sum times 2^24 / result alpha (rounded down), shifted back by 24.
    /// A transparent source pixel leaves the destination as it was, colour included.
    @inline(__always)
    private static func blendStraightRow(_ source: UnsafePointer<UInt32>, over target: UnsafeMutablePointer<UInt32>, count: Int) {
        for pixel in 0..<count {
            let src = UInt32(littleEndian: source[pixel])
            let srcAlpha = src >> 24
            if srcAlpha == 255 {
                target[pixel] = source[pixel]
            } else if srcAlpha != 0 {
                let dst = UInt32(littleEndian: target[pixel])
                let dstWeight = ((dst >> 24) &* (256 - srcAlpha)) >> 8
                let alpha = srcAlpha &+ dstWeight
                // alpha ≥ srcAlpha ≥ 1; each sum ≤ 255 × alpha, so sum × scale < 2^32.
                let scale = (1 << 24) / alpha
                @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
                    let sum = ((src >> shift) & 0xFF) &* srcAlpha &+ ((dst >> shift) & 0xFF) &* dstWeight
                    return ((sum &* scale) >> 24) << shift
                }
                target[pixel] = (alpha << 24 | channel(0) | channel(8) | channel(16)).littleEndian
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
