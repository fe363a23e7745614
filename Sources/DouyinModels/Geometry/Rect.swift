/// A rectangle in points (or any one unit used throughout): (`x`, `y`) its top-left corner,
/// y growing downwards as in a view or a scroll view's content. The one rectangle of the
/// package: the gift panel's cells, the profile header's frames and the feed's visibility rule
/// all use it, so an app converts to and from `CGRect` in one place.
public struct Rect: Sendable, Hashable {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The width; a negative or non-finite width is an empty rectangle (``area`` 0).
    public var width: Double
    /// The height; a negative or non-finite height is an empty rectangle (``area`` 0).
    public var height: Double

    /// A rectangle with its top-left corner at (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rectangle of `size` with its top-left corner at (`x`, `y`).
    public init(x: Double, y: Double, size: Size) {
        self.init(x: x, y: y, width: size.width, height: size.height)
    }

    /// Its width and height.
    public var size: Size { Size(width: width, height: height) }

    /// The right edge, `x + width`.
    public var maxX: Double { x + width }

    /// The bottom edge, `y + height`.
    public var maxY: Double { y + height }

    /// Width × height; 0 when either side or the corner is not finite, or a side is not positive.
    public var area: Double {
        guard x.isFinite, y.isFinite, size.isDrawable else { return 0 }
        return width * height
    }

    /// The area shared with `other`; 0 when either is empty or they only touch.
    public func overlap(with other: Rect) -> Double {
        guard area > 0, other.area > 0 else { return 0 }
        let w = min(maxX, other.maxX) - max(x, other.x)
        let h = min(maxY, other.maxY) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }
}
