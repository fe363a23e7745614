import Foundation

extension FeedPolicy {
    /// How far (in points) a swipe must move past its start to change the item: 50 pt.
    public static let swipeThreshold: Double = 50

    /// The page shown at a content offset, rounded to the nearest whole page, so an offset of
    /// 2.999999 pages (floating-point drift after scrolling) is page 3, not 2. Clamped to
    /// `0..<count`; 0 when `pageHeight` is not positive or `count` is 0.
    public static func pageIndex(offset: Double, pageHeight: Double, count: Int) -> Int {
        guard pageHeight > 0, count > 0, offset.isFinite else { return 0 }
        let rounded = (offset / pageHeight).rounded()
        guard rounded > 0 else { return 0 }
        guard rounded < Double(count - 1) else { return count - 1 }
        return Int(rounded)
    }

    /// The item to settle on after a swipe of `translation` points (the finger's vertical
    /// movement from the pan's start: negative is up, towards the next item): one item on
    /// when the swipe passes ``swipeThreshold`` (strictly), never past the first or last item;
    /// else the current one. `current` out of range is clamped first.
    public static func settledIndex(afterSwipe translation: Double, from current: Int, count: Int, threshold: Double = swipeThreshold) -> Int {
        guard count > 0 else { return 0 }
        let current = min(max(current, 0), count - 1)
        guard translation.isFinite else { return current }
        if translation < -threshold { return min(current + 1, count - 1) }
        if translation > threshold { return max(current - 1, 0) }
        return current
    }

    /// The content offset after a layout change (rotation, split screen) that keeps the page
    /// that was shown and aligns it to a whole page of the new height: the page is taken from
    /// `offset` and the old height (rounded, see ``pageIndex(offset:pageHeight:count:)``).
    public static func realignedOffset(offset: Double, oldPageHeight: Double, newPageHeight: Double, count: Int) -> Double {
        guard newPageHeight > 0, newPageHeight.isFinite else { return 0 }
        return Double(pageIndex(offset: offset, pageHeight: oldPageHeight, count: count)) * newPageHeight
    }
}
