import Foundation

/// One piece of a chat text: plain text, or an emotion token such as `[微笑]`.
///
/// Ranges are given both in UTF-16 code units (what `NSRange`, `UITextView` and the API's
/// offsets use) and as `String.Index` ranges of the parsed text, so neither side has to convert.
public struct EmotionSegment: Sendable, Hashable {
    /// What the piece is.
    public enum Kind: Sendable, Hashable {
        /// Text shown as is (including brackets that are not an emotion).
        case text
        /// An emotion of the table; `key` is its file name, such as `weixiao`.
        case emotion(key: String)
    }

    /// Text or emotion.
    public var kind: Kind
    /// The piece's characters exactly as they stand in the parsed text (for an emotion, its
    /// `[text]` form).
    public var text: String
    /// Where the piece stands in the parsed text, in UTF-16 code units.
    public var utf16Range: Range<Int>
    /// Where the piece stands in the parsed text, as indices of that `String`.
    public var range: Range<String.Index>

    /// Builds a segment.
    public init(kind: Kind, text: String, utf16Range: Range<Int>, range: Range<String.Index>) {
        self.kind = kind
        self.text = text
        self.utf16Range = utf16Range
        self.range = range
    }

    /// The emotion's key, or `nil` for text.
    public var emotionKey: String? {
        if case .emotion(let key) = kind { return key }
        return nil
    }
}
