import DouyinModels

/// The gift panel's paged grid: gifts in horizontal pages of `rows` × `columns` cells, read row
/// by row within each page, as a collection view's custom layout asks for it.
///
/// A horizontal flow layout fills columns first (gift 1 lands under gift 0); the panel reads
/// row by row, so each gift's page, row and column are computed here. The page count is the
/// ceiling of count / cells per page (the seed's `count / 8 + 1` showed an empty last page when
/// the count was a multiple of 8). Every mapping goes both ways: index ↔ ``Position`` ↔ frame
/// (a `Rect`, the package's one rectangle, from DouyinModels). Lengths are points (any unit, as
/// long as it is one unit throughout); the panel's origin is the first page's top-left corner,
/// x to the right, y downwards.
public struct GiftPanelLayout: Sendable, Hashable {
    /// A cell's place: its page (from 0, left to right), row (from 0, top to bottom) and
    /// column (from 0, left to right) within the page.
    public struct Position: Sendable, Hashable {
        /// The page, from 0.
        public var page: Int
        /// The row within the page, from 0.
        public var row: Int
        /// The column within the page, from 0.
        public var column: Int

        /// A position; no range is checked (``GiftPanelLayout/index(of:)`` checks it).
        public init(page: Int, row: Int, column: Int) {
            self.page = page
            self.row = row
            self.column = column
        }
    }

    /// Rows per page, ≥ 1; 2 by default.
    public let rows: Int
    /// Columns per page, ≥ 1; 4 by default.
    public let columns: Int
    /// One page's width: the panel's visible width, points, ≥ 0.
    public let pageWidth: Double
    /// One page's height: the panel's visible height, points, ≥ 0.
    public let pageHeight: Double

    /// A grid of `rows` × `columns` cells per page over a visible panel of `pageWidth` ×
    /// `pageHeight` points; each cell is `pageWidth / columns` wide and `pageHeight / rows` tall.
    ///
    /// - Precondition: `rows` and `columns` ≥ 1, the sizes finite and ≥ 0.
    public init(rows: Int = 2, columns: Int = 4, pageWidth: Double, pageHeight: Double) {
        precondition(rows >= 1 && columns >= 1, "a page holds at least one cell")
        precondition(pageWidth.isFinite && pageWidth >= 0 && pageHeight.isFinite && pageHeight >= 0, "sizes are finite and not negative")
        self.rows = rows
        self.columns = columns
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
    }

    /// Cells on one page: `rows × columns`.
    public var cellsPerPage: Int { rows * columns }

    /// One cell's width, points.
    public var cellWidth: Double { pageWidth / Double(columns) }

    /// One cell's height, points.
    public var cellHeight: Double { pageHeight / Double(rows) }

    /// Pages needed for `count` gifts: the ceiling of `count / cellsPerPage`; 0 for no gifts.
    public func pageCount(for count: Int) -> Int {
        count <= 0 ? 0 : (count - 1) / cellsPerPage + 1
    }

    /// The scrollable content's width for `count` gifts: whole pages, points.
    public func contentWidth(for count: Int) -> Double {
        Double(pageCount(for: count)) * pageWidth
    }

    /// Where gift `index` (≥ 0) sits: filled row by row within a page, page after page.
    public func position(of index: Int) -> Position {
        precondition(index >= 0, "an index is not negative")
        let page = index / cellsPerPage, within = index % cellsPerPage
        return Position(page: page, row: within / columns, column: within % columns)
    }

    /// The gift index at `position`, or `nil` when its row or column is outside the page or
    /// its page is negative.
    public func index(of position: Position) -> Int? {
        guard position.page >= 0, (0..<rows).contains(position.row), (0..<columns).contains(position.column) else { return nil }
        return position.page * cellsPerPage + position.row * columns + position.column
    }

    /// The frame of gift `index` (≥ 0) in the content.
    public func frame(of index: Int) -> Rect {
        let position = position(of: index)
        return Rect(
            x: Double(position.page) * pageWidth + Double(position.column) * cellWidth,
            y: Double(position.row) * cellHeight,
            width: cellWidth,
            height: cellHeight
        )
    }

    /// The gift under the point (`x`, `y`) of the content among `count` gifts, or `nil` when the
    /// point is outside the pages, in a page's empty cells, or the cells have no size. A point
    /// on a border between two cells belongs to the right or lower one.
    public func index(atX x: Double, y: Double, count: Int) -> Int? {
        guard cellWidth > 0, cellHeight > 0, x >= 0, y >= 0, y < pageHeight, x < contentWidth(for: count) else { return nil }
        let page = Int(x / pageWidth)
        let column = min(columns - 1, Int((x - Double(page) * pageWidth) / cellWidth))
        let row = min(rows - 1, Int(y / cellHeight))
        guard let index = index(of: Position(page: page, row: row, column: column)), index < count else { return nil }
        return index
    }

    /// The page a horizontal content offset shows most of (rounded to the nearest page, clamped
    /// to the pages of `count` gifts); 0 when there are none or the pages have no width.
    public func page(atContentOffset x: Double, count: Int) -> Int {
        let pages = pageCount(for: count)
        guard pages > 0, pageWidth > 0, x.isFinite else { return 0 }
        return min(pages - 1, max(0, Int((x / pageWidth).rounded())))
    }
}
