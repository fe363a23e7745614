/// Why a WebP file could not be read or a frame decoded; every case says what was wrong.
public enum WebPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a WebP container, or one whose chunk sizes do not add up (truncated, garbage):
    /// libwebp's demuxer refused it.
    case invalidContainer
    /// The container holds no frame.
    case noFrames
    /// The canvas is larger than the decoder is allowed to allocate (`limit` in pixels).
    case canvasTooLarge(width: Int, height: Int, limit: Int)
    /// A frame's rectangle reaches outside the canvas.
    case frameOutsideCanvas(index: Int)
    /// A frame's bitstream declares another size than its frame header, so it would not fill
    /// its rectangle (or would write past it); refused before decoding.
    case frameSizeMismatch(index: Int)
    /// libwebp could not decode a frame's bitstream; `status` is its `VP8StatusCode`
    /// (3 bitstream error, 4 unsupported feature, 7 not enough data, …).
    case frameDecodingFailed(index: Int, status: Int)
    /// A frame number beyond the animation.
    case frameIndexOutOfRange(index: Int, count: Int)
    /// A ``WebPDecodeQueues/Configuration`` field outside its documented range: the field's
    /// name, the value given and the allowed range, as text.
    case configurationOutOfRange(field: String, value: String, allowed: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .invalidContainer: "not a valid WebP file (bad RIFF header or chunk sizes, or truncated)"
        case .noFrames: "the WebP file holds no frame"
        case .canvasTooLarge(let width, let height, let limit): "canvas \(width)×\(height) exceeds the limit of \(limit) pixels"
        case .frameOutsideCanvas(let index): "frame \(index) reaches outside the canvas"
        case .frameSizeMismatch(let index): "frame \(index)'s bitstream size differs from its frame header"
        case .frameDecodingFailed(let index, let status): "frame \(index) could not be decoded (libwebp: \(Self.name(ofStatus: status)))"
        case .frameIndexOutOfRange(let index, let count): "frame \(index) requested of an animation with \(count) frames"
        case .configurationOutOfRange(let field, let value, let allowed): "\(field) \(value) is outside \(allowed)"
        }
    }

    /// libwebp's name for a `VP8StatusCode`.
    static func name(ofStatus status: Int) -> String {
        switch status {
        case 1: "out of memory"
        case 2: "invalid parameter"
        case 3: "bitstream error"
        case 4: "unsupported feature"
        case 5: "suspended"
        case 6: "user abort"
        case 7: "not enough data"
        default: "status \(status)"
        }
    }
}
