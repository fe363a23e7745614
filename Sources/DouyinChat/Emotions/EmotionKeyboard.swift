import DouyinModels

/// The emotion selector's paging: pages of 3 rows × 7 columns whose last cell is "delete", so
/// 20 emotions a page; the last page holds what remains and its unused cells are empty.
///
/// The table's `array` pages are read in order and flattened (names the `dict` lacks are
/// skipped), then cut into pages of 20, so a server table whose pages differ in size still maps
/// every cell to the emotion drawn there.
public struct EmotionKeyboard: Sendable, Hashable {
    /// Rows per page: 3.
    public static let rows = 3
    /// Columns per page: 7.
    public static let columns = 7
    /// Cells per page: 21, the last of them delete.
    public static let cellsPerPage = rows * columns
    /// Emotions per page: 20.
    public static let emotionsPerPage = cellsPerPage - 1

    /// What one cell of the keyboard shows.
    public enum Cell: Sendable, Hashable {
        /// An emotion: its key and `[text]` form.
        case emotion(key: String, text: String)
        /// The delete key (the last cell of every page).
        case delete
        /// Nothing: past the last emotion of the last page, or outside the keyboard.
        case empty
    }

    /// Every emotion in keyboard order, as (key, `[text]`).
    public let emotions: [(key: String, text: String)]

    /// The keyboard for `table`.
    public init(table: EmotionTable) {
        emotions = table.array.joined().compactMap { key in table.dict[key].map { (key, $0) } }
    }

    /// How many pages; 0 for a table with no emotions.
    public var pageCount: Int { (emotions.count + Self.emotionsPerPage - 1) / Self.emotionsPerPage }

    /// The cell at `index` (0..<21, row-major) of `page`: `.delete` for index 20, `.empty`
    /// past the last emotion or outside the keyboard.
    public func cell(page: Int, index: Int) -> Cell {
        guard page >= 0, page < pageCount, index >= 0, index < Self.cellsPerPage else { return .empty }
        if index == Self.cellsPerPage - 1 { return .delete }
        let position = page * Self.emotionsPerPage + index
        guard position < emotions.count else { return .empty }
        return .emotion(key: emotions[position].key, text: emotions[position].text)
    }

    /// The cell at `row` (0..<3) and `column` (0..<7) of `page`.
    public func cell(page: Int, row: Int, column: Int) -> Cell {
        guard row >= 0, row < Self.rows, column >= 0, column < Self.columns else { return .empty }
        return cell(page: page, index: row * Self.columns + column)
    }

    /// The emotions of `page` in cell order (at most 20; empty for a page out of range).
    public func page(_ page: Int) -> [(key: String, text: String)] {
        guard page >= 0, page < pageCount else { return [] }
        let start = page * Self.emotionsPerPage
        return Array(emotions[start..<min(start + Self.emotionsPerPage, emotions.count)])
    }

    /// Keyboards are equal when they show the same emotions in the same cells.
    public static func == (lhs: EmotionKeyboard, rhs: EmotionKeyboard) -> Bool {
        lhs.emotions.elementsEqual(rhs.emotions) { $0.key == $1.key && $0.text == $1.text }
    }

    /// Hashes the emotions in order.
    public func hash(into hasher: inout Hasher) {
        for emotion in emotions {
            hasher.combine(emotion.key)
            hasher.combine(emotion.text)
        }
    }
}
