import Foundation

/// The emotion table: `dict` maps an emotion's file name to its `[text]` form, `array` holds
/// the keyboard's pages of names.
public struct EmotionTable: Codable, Sendable, Hashable {
    /// File name → text form, such as `weixiao` → `[微笑]`; empty when absent or `null`.
    public var dict: [String: String]
    /// The keyboard's pages, each a list of file names; empty when absent or `null`.
    public var array: [[String]]

    enum CodingKeys: String, CodingKey {
        case dict, array
    }

    /// Builds a table.
    public init(dict: [String: String], array: [[String]]) {
        self.dict = dict
        self.array = array
    }

    /// Decodes a table; both parts read as empty when absent or `null`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dict = try c.decodeIfPresent([String: String].self, forKey: .dict) ?? [:]
        array = try c.decodeList([[String]].self, forKey: .array)
    }

    /// The text form of each emotion on a page, skipping names the table does not know.
    public func texts(onPage page: Int) -> [String] {
        guard array.indices.contains(page) else { return [] }
        return array[page].compactMap { dict[$0] }
    }
}
