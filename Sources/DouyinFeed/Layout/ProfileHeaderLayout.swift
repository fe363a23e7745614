import DouyinModels

/// The profile page's sticky header and tab bar, as a collection view's layout asks for them:
/// given the vertical content offset, where the first section's header (the profile card over
/// its background image) and footer (the tab bar) are drawn, in which order, and how much the
/// header image is stretched by a pull-down.
///
/// - The header scrolls with the content until its bottom reaches the navigation bar's bottom,
///   then stops there (its lower part stays behind the bar as the bar's background).
/// - The footer scrolls with the content until its top reaches the navigation bar's bottom,
///   then pins there, under the bar, while the section's cells scroll beneath it.
/// - The footer is drawn above the header, and both above the cells (``footerZIndex`` >
///   ``headerZIndex`` > 0).
/// - A pull-down (a negative offset) keeps the header's top at the visible top and grows it by
///   the overscroll; the image scales by ``Attributes/headerScale`` from its bottom centre.
///
/// Coordinates are the content's: y downwards, 0 the content's top, in points. The offset is
/// the visible top's y, 0 at rest and negative while pulled down (an app with a content inset
/// subtracts it first). The navigation bar height is the height the bar (with the status bar)
/// covers at the visible top; 0 when there is none. No UIKit type: the same numbers work in
/// tests, on Linux and in a `UICollectionViewLayout`.
public struct ProfileHeaderLayout: Sendable, Hashable {
    /// Where the header and the footer are drawn at one content offset.
    public struct Attributes: Sendable, Hashable {
        /// The header's frame: stopped under the navigation bar, or stretched by a pull-down.
        public var header: Rect
        /// The footer's (tab bar's) frame: pinned under the navigation bar once it reached it.
        public var footer: Rect
        /// How much the header image is scaled, ≥ 1: 1 at rest, (height + overscroll) / height
        /// while pulled down (from its bottom centre, so it fills the stretched header).
        public var headerScale: Double
        /// Whether the header has stopped at the navigation bar (it no longer scrolls).
        public var isHeaderStopped: Bool
        /// Whether the footer is pinned under the navigation bar.
        public var isFooterPinned: Bool
    }

    /// The header's z index: above the cells (0), below the footer.
    public static let headerZIndex = 1
    /// The footer's z index: above the header, so the pinned tab bar is never covered.
    public static let footerZIndex = 2

    /// The first section's header frame at rest (offset 0).
    public var header: Rect
    /// The first section's footer (tab bar) frame at rest.
    public var footer: Rect
    /// The height the navigation bar covers at the visible top, points, ≥ 0; 0 for none.
    public var navigationBarHeight: Double

    /// The layout of `header` and `footer` (their frames at rest) under a navigation bar
    /// `navigationBarHeight` points tall (negative values count as 0). On rotation, make a new
    /// one from the new frames and bar height: nothing is kept from the old size.
    public init(header: Rect, footer: Rect, navigationBarHeight: Double) {
        self.header = header
        self.footer = footer
        self.navigationBarHeight = max(0, navigationBarHeight)
    }

    /// The frames at content offset `offset` (the visible top's y; negative while pulled down).
    public func attributes(contentOffset offset: Double) -> Attributes {
        let barBottom = offset + navigationBarHeight
        let overscroll = max(0, -offset)
        var header = header
        var scale = 1.0
        if overscroll > 0, self.header.y <= 0 {
            // Pulled down: the header's top follows the visible top and its bottom stays on
            // the footer.
            header.y -= overscroll
            header.height += overscroll
            // The frame keeps its width (the screen's); the image inside scales to fill it.
            scale = self.header.height > 0 ? header.height / self.header.height : 1
        }
        // Stops once its bottom reaches the bar's bottom: it moves down with the offset from then on.
        let headerStopped = barBottom > header.maxY
        if headerStopped { header.y = barBottom - header.height }
        var footer = footer
        let footerPinned = barBottom > footer.y
        if footerPinned { footer.y = barBottom }
        return Attributes(header: header, footer: footer, headerScale: scale, isHeaderStopped: headerStopped, isFooterPinned: footerPinned)
    }

    /// The offset at which the footer pins: its resting top less the bar height.
    public var footerPinOffset: Double { footer.y - navigationBarHeight }

    /// The offset at which the header stops: its resting bottom less the bar height.
    public var headerStopOffset: Double { header.maxY - navigationBarHeight }
}
