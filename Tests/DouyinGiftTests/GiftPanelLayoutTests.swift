import DouyinGift
import DouyinModels
import Testing

@Suite("Gift panel paged grid")
struct GiftPanelLayoutTests {
    let layout = GiftPanelLayout(pageWidth: 400, pageHeight: 200)  // 2 × 4 cells of 100 × 100

    @Test func fillsRowByRowWithinAPage() {
        // A horizontal flow layout would put gift 1 under gift 0; the panel reads across.
        let positions = (0..<9).map { layout.position(of: $0) }
        #expect(positions.map(\.page) == [0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(positions.map(\.row) == [0, 0, 0, 0, 1, 1, 1, 1, 0])
        #expect(positions.map(\.column) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
        #expect(layout.frame(of: 1) == Rect(x: 100, y: 0, width: 100, height: 100))
        #expect(layout.frame(of: 4) == Rect(x: 0, y: 100, width: 100, height: 100))
        #expect(layout.frame(of: 9) == Rect(x: 500, y: 0, width: 100, height: 100))
    }

    @Test func pageCountIsTheCeilingWithNoEmptyPageAtAMultipleOfThePageSize() {
        // The seed's count / 8 + 1 gave 2 pages for 8 gifts and 1 for none.
        #expect(layout.pageCount(for: 0) == 0)
        #expect(layout.pageCount(for: 1) == 1)
        #expect(layout.pageCount(for: 8) == 1)
        #expect(layout.pageCount(for: 9) == 2)
        #expect(layout.pageCount(for: 16) == 2)
        #expect(layout.pageCount(for: 17) == 3)
        #expect(layout.contentWidth(for: 16) == 800)
        #expect(layout.contentWidth(for: 17) == 1200)
        #expect(layout.contentWidth(for: 0) == 0)
    }

    @Test(arguments: [(2, 4), (1, 1), (3, 5), (4, 2)])
    func indexPositionAndFrameMapBothWays(_ shape: (rows: Int, columns: Int)) {
        let layout = GiftPanelLayout(rows: shape.rows, columns: shape.columns, pageWidth: 375, pageHeight: 230)
        let count = layout.cellsPerPage * 3 - 1
        for index in 0..<count {
            let position = layout.position(of: index)
            #expect(layout.index(of: position) == index)
            let frame = layout.frame(of: index)
            #expect(layout.index(atX: frame.x + frame.width / 2, y: frame.y + frame.height / 2, count: count) == index)
            // Its top-left corner belongs to it too (a border goes to the right or lower cell).
            #expect(layout.index(atX: frame.x, y: frame.y, count: count) == index)
            // Every cell lies within its page.
            #expect(frame.x >= Double(position.page) * 375 - 1e-9)
            #expect(frame.x + frame.width <= Double(position.page + 1) * 375 + 1e-9)
        }
    }

    @Test func pointsOutsideTheGiftsHaveNoIndex() {
        #expect(layout.index(atX: 450, y: 150, count: 9) == nil)  // page 1, an empty cell
        #expect(layout.index(atX: 1200, y: 50, count: 9) == nil)  // past the last page
        #expect(layout.index(atX: -1, y: 50, count: 9) == nil)
        #expect(layout.index(atX: 50, y: 200, count: 9) == nil)  // below the rows
        #expect(layout.index(of: GiftPanelLayout.Position(page: 0, row: 2, column: 0)) == nil)
        #expect(layout.index(of: GiftPanelLayout.Position(page: 0, row: 0, column: 4)) == nil)
        #expect(layout.index(of: GiftPanelLayout.Position(page: -1, row: 0, column: 0)) == nil)
        let empty = GiftPanelLayout(pageWidth: 0, pageHeight: 0)
        #expect(empty.index(atX: 0, y: 0, count: 3) == nil)
    }

    @Test func theShownPageRoundsAndClamps() {
        #expect(layout.page(atContentOffset: 0, count: 20) == 0)
        #expect(layout.page(atContentOffset: 199, count: 20) == 0)
        #expect(layout.page(atContentOffset: 201, count: 20) == 1)
        #expect(layout.page(atContentOffset: 5000, count: 20) == 2)
        #expect(layout.page(atContentOffset: -300, count: 20) == 0)
        #expect(layout.page(atContentOffset: 400, count: 0) == 0)
    }

    @Test func theSelectionFollowsTheGiftNotTheIndex() {
        var ids = (0..<10).map { "gift-\($0)" }
        var selection = GiftSelection<String>()
        selection.select(index: 8, in: ids)  // page 1, first cell
        #expect(selection.selectedID == "gift-8")
        // A gift inserted at the front: the selected gift moved to index 9; index 8 is another.
        ids.insert("new", at: 0)
        #expect(selection.update(to: ids) == 9)
        #expect(!selection.isSelected(at: 8, in: ids))
        #expect(selection.isSelected(at: 9, in: ids))
        // Shown selected on exactly one cell, even with the ID listed twice.
        ids.append("gift-8")
        #expect(ids.indices.filter { selection.isSelected(at: $0, in: ids) } == [9])
        // The gift removed: nothing is selected, on any page.
        ids.removeAll { $0 == "gift-8" }
        #expect(selection.update(to: ids) == nil)
        #expect(selection.selectedID == nil)
        #expect(ids.indices.allSatisfy { !selection.isSelected(at: $0, in: ids) })
        selection.select(index: 99, in: ids)
        #expect(selection.selectedID == nil)
    }
}
