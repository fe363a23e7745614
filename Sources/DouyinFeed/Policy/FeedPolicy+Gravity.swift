import DouyinModels
import Foundation

extension FeedPolicy {
    /// How a video fills its view.
    public enum VideoGravity: Sendable, Hashable {
        /// Fill the view, cropping the overflow (AVLayerVideoGravity.resizeAspectFill).
        case aspectFill
        /// Fit inside the view, bars on the short sides (AVLayerVideoGravity.resizeAspect).
        case aspectFit
    }

    /// A track's preferred transform: the 2×2 part of an affine transform (translation does not
    /// change the size), as AVFoundation's `CGAffineTransform` a, b, c, d.
    public struct TrackTransform: Sendable, Hashable {
        /// x' = a·x + c·y
        public var a: Double
        /// y' = b·x + d·y
        public var b: Double
        /// x' = a·x + c·y
        public var c: Double
        /// y' = b·x + d·y
        public var d: Double

        /// A transform from its four coefficients.
        public init(a: Double, b: Double, c: Double, d: Double) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// No rotation.
        public static let identity = TrackTransform(a: 1, b: 0, c: 0, d: 1)
        /// A quarter turn (portrait phone recordings): width and height swap.
        public static let rotated90 = TrackTransform(a: 0, b: 1, c: -1, d: 0)
    }

    /// Aspect-fill when the displayed video (its natural size after `transform`) is at least as
    /// wide relative to its height as the view, else aspect-fit. A zero or non-finite size on
    /// either side gives aspect-fit (nothing sensible to crop).
    public static func videoGravity(naturalSize: Size, transform: TrackTransform = .identity, viewSize: Size) -> VideoGravity {
        let shown = Size(
            width: abs(transform.a * naturalSize.width + transform.c * naturalSize.height),
            height: abs(transform.b * naturalSize.width + transform.d * naturalSize.height)
        )
        guard shown.isDrawable, viewSize.isDrawable else { return .aspectFit }
        // Cross-multiplied so equal ratios compare equal without a division's rounding.
        return shown.width * viewSize.height >= viewSize.width * shown.height ? .aspectFill : .aspectFit
    }
}
