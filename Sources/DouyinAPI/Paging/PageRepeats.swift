import DouyinModels

/// Which items the pages of one ``APIPages`` sequence held, to tell a server that repeats
/// itself: a page is a repeat when every item on it came on an earlier page.
///
/// A page sharing only some items with earlier ones is not a repeat: with offset paging, a
/// comment posted meanwhile shifts the next page by one, and that page is real.
package struct PageRepeats {
    /// No page seen yet.
    package init() {}

    /// The page each item key was first seen on.
    private var firstPage: [AnyHashable: Int] = [:]

    /// Records a page's item keys; returns the earlier page that held its first item when all
    /// of them were seen before (a repeat), else `nil`.
    package mutating func record(page: Int, keys: [AnyHashable]) -> Int? {
        guard let first = keys.first else { return nil }
        if let earlier = firstPage[first], keys.allSatisfy({ firstPage[$0] != nil }) {
            return earlier
        }
        for key in keys where firstPage[key] == nil {
            firstPage[key] = page
        }
        return nil
    }

    /// An item's identity: the API's id for the models that have one, else the item itself
    /// when it is Hashable, else its text.
    package static func key<Item>(_ item: Item) -> AnyHashable {
        switch item {
        case let aweme as Aweme: AnyHashable("aweme:" + aweme.awemeID)
        case let comment as Comment: AnyHashable("comment:" + comment.cid)
        case let chat as GroupChat: AnyHashable("chat:" + chat.id)
        case let hashable as any Hashable: AnyHashable(hashable)
        default: AnyHashable(String(describing: item))
        }
    }
}
