/// Why a WebP file could not be read or a frame decoded; every case says what was wrong.
public enum WebPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a WebP container, or one whose chunk sizes do not add up (truncated, garbage).
    case invalidContainer
    /// The container holds no frame.
    case noFrames
    /// The canvas is larger than the decoder is allowed to allocate.
    case canvasTooLarge(width: Int, height: Int, limit: Int)
    /// A frame's rectangle reaches outside the canvas.
    case frameOutsideCanvas(index: Int)
    /// libwebp could not decode a frame's bitstream.
    case frameDecodingFailed(index: Int)
    /// A frame number beyond the animation.
    case frameIndexOutOfRange(index: Int, count: Int)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .invalidContainer: "not a valid WebP file (bad RIFF header or chunk sizes, or truncated)"
        case .noFrames: "the WebP file holds no frame"
        case .canvasTooLarge(let width, let height, let limit): "canvas \(width)×\(height) exceeds the limit of \(limit) pixels"
        case .frameOutsideCanvas(let index): "frame \(index) reaches outside the canvas"
        case .frameDecodingFailed(let index): "frame \(index) could not be decoded"
        case .frameIndexOutOfRange(let index, let count): "frame \(index) requested of an animation with \(count) frames"
        }
    }
}
