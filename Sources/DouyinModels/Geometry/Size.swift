/// A width and a height in points (or any one unit used throughout), for the layouts and
/// playback rules that answer a view's geometry without UIKit or CoreGraphics: the same
/// numbers work in tests, on Linux and in an app (`CGSize(width: size.width, height: size.height)`).
public struct Size: Sendable, Hashable {
    /// The width; a negative or non-finite width is an empty size (what each user of it does
    /// with one is said where it is taken).
    public var width: Double
    /// The height; a negative or non-finite height is an empty size.
    public var height: Double

    /// A size of `width` × `height`.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// No width and no height.
    public static let zero = Size(width: 0, height: 0)

    /// Whether both sides are finite and greater than 0: a size something can be drawn in.
    public var isDrawable: Bool {
        width.isFinite && height.isFinite && width > 0 && height > 0
    }
}
