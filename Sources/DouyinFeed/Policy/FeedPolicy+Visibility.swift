import DouyinModels
import Foundation

extension FeedPolicy {
    /// One item of a scrolling list: its index and the frame of its video area (not the whole
    /// cell: captions and buttons don't count), in the viewport's coordinates.
    public struct ListItem: Sendable, Hashable {
        /// The item's index in the feed.
        public var index: Int
        /// Where its video is drawn.
        public var videoFrame: Rect
        /// An item.
        public init(index: Int, videoFrame: Rect) {
            self.index = index
            self.videoFrame = videoFrame
        }
    }

    /// The smallest visible share of a video's area for it to play in a list: 0.5 by default.
    public static let defaultVisibilityThreshold: Double = 0.5

    /// Which item plays in a scrolling list: the one whose video area is most visible (in
    /// points²), ties to the one whose centre is nearest the viewport's centre, then the lower
    /// index; `nil` when no item shows at least `threshold` of its own video area.
    public static func playingItem(in items: [ListItem], viewport: Rect, threshold: Double = defaultVisibilityThreshold) -> Int? {
        let centre = (x: viewport.x + viewport.width / 2, y: viewport.y + viewport.height / 2)
        var best: (index: Int, visible: Double, distance: Double)?
        for item in items {
            let area = item.videoFrame.area
            guard area > 0 else { continue }
            let visible = item.videoFrame.overlap(with: viewport)
            guard visible > 0, visible / area >= threshold else { continue }
            let frame = item.videoFrame
            let distance = hypot(frame.x + frame.width / 2 - centre.x, frame.y + frame.height / 2 - centre.y)
            if let current = best {
                // Equal within a millionth: layout arithmetic leaves such dust.
                let tolerance = max(current.visible, visible) * 1e-9
                if visible > current.visible + tolerance { best = (item.index, visible, distance); continue }
                if visible < current.visible - tolerance { continue }
                if distance < current.distance || (distance == current.distance && item.index < current.index) {
                    best = (item.index, visible, distance)
                }
            } else {
                best = (item.index, visible, distance)
            }
        }
        return best?.index
    }

    /// Which item plays in the full-screen pager: the current page, from the content offset
    /// (see ``pageIndex(offset:pageHeight:count:)``); `nil` for an empty feed.
    public static func playingPage(offset: Double, pageHeight: Double, count: Int) -> Int? {
        count > 0 ? pageIndex(offset: offset, pageHeight: pageHeight, count: count) : nil
    }
}
