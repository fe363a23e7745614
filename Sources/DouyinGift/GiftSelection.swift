/// The gift panel's selected gift, kept by its identity rather than its index.
///
/// When the gift list changes (a gift added, removed or moved), an index would point at another
/// gift, and a cell reused on another page could show selected too. Here the selection is the
/// gift's ID: its index is looked up in the current list, a gift that left the list is no
/// longer selected, and ``isSelected(at:in:)`` is true for one index at most (the first with
/// that ID, should the list hold it twice).
public struct GiftSelection<ID: Hashable & Sendable>: Sendable, Hashable {
    /// The selected gift's ID; `nil` when none is selected.
    public private(set) var selectedID: ID?

    /// A selection of `id`; none by default.
    public init(selectedID: ID? = nil) {
        self.selectedID = selectedID
    }

    /// Selects the gift with `id`, or clears the selection with `nil`.
    public mutating func select(_ id: ID?) {
        selectedID = id
    }

    /// Selects the gift at `index` of `ids`; an index outside the list clears the selection.
    public mutating func select(index: Int, in ids: [ID]) {
        selectedID = ids.indices.contains(index) ? ids[index] : nil
    }

    /// The selected gift's index in `ids`, or `nil` when none is selected or it is not there.
    public func selectedIndex(in ids: [ID]) -> Int? {
        guard let selectedID else { return nil }
        return ids.firstIndex(of: selectedID)
    }

    /// Whether the cell at `index` shows the selection: true for one index at most.
    public func isSelected(at index: Int, in ids: [ID]) -> Bool {
        selectedIndex(in: ids) == index
    }

    /// The list changed to `ids`: a selected gift no longer in it is deselected. Returns the
    /// selected gift's new index, `nil` when none.
    @discardableResult
    public mutating func update(to ids: [ID]) -> Int? {
        let index = selectedIndex(in: ids)
        if index == nil { selectedID = nil }
        return index
    }
}
