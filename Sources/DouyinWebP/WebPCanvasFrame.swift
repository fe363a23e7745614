/// How a composited canvas stores alpha.
public enum WebPAlphaMode: Sendable, Hashable {
    /// Colour channels multiplied by alpha, what Core Graphics and GPUs draw; equal to libwebp's
    /// `WebPAnimDecoder` in `MODE_rgbA`. The default.
    case premultiplied
    /// Colour channels independent of alpha, what image files (PAM, PNG) store; equal to
    /// libwebp's `WebPAnimDecoder` in `MODE_RGBA`, including its integer blend of
    /// semi-transparent pixels. Dividing a premultiplied canvas back cannot give this: at low
    /// alpha the colour is lost (alpha 6 keeps only 7 levels per channel).
    case straight
}

/// One composited frame: the whole canvas as it must look at that frame.
public struct WebPCanvasFrame: Sendable, Hashable {
    /// The frame's number, from 0.
    public var index: Int
    /// Canvas width in pixels.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// How long to show it (see ``WebPFrameInfo/displayDuration``).
    public var duration: Duration
    /// How ``rgba`` stores alpha.
    public var alphaMode: WebPAlphaMode
    /// Row-major 8-bit RGBA, `width × height × 4` bytes, in ``alphaMode``.
    public var rgba: [UInt8]

    /// Wraps a canvas.
    public init(index: Int, width: Int, height: Int, duration: Duration, alphaMode: WebPAlphaMode, rgba: [UInt8]) {
        self.index = index
        self.width = width
        self.height = height
        self.duration = duration
        self.alphaMode = alphaMode
        self.rgba = rgba
    }
}
