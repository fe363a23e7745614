import Foundation

/// One piece of a chat text: plain text, or an emotion token such as `[微笑]`.
///
/// Ranges are given both in UTF-16 code units (what `NSRange`, `UITextView` and the API's
/// offsets use) and as `String.Index` ranges of the parsed text, so neither side has to convert.
///
/// A text segment made by ``EmotionCodec/segments(of:)`` shares the parsed string's storage
/// (as a `Substring` does) and copies its characters out only when ``text`` is read: building
/// a `String` per text run was most of the parse time, and a chat view that lays out the whole
/// text and swaps emotions in by range never reads it. The segment keeps the parsed string
/// alive meanwhile.
public struct EmotionSegment: Sendable, Hashable {
    /// What the piece is.
    public enum Kind: Sendable, Hashable {
        /// Text shown as is (including brackets that are not an emotion).
        case text
        /// An emotion of the table; `key` is its file name, such as `weixiao`.
        case emotion(key: String)
    }

    /// Where the characters of ``text`` are: a string of their own, or the parsed string
    /// sliced by ``range`` (copied out when read).
    private enum Characters: Sendable {
        case own(String)
        case slice(of: String)
    }

    /// Text or emotion.
    public var kind: Kind
    /// The piece's characters exactly as they stand in the parsed text (for an emotion, its
    /// `[text]` form).
    ///
    /// - Complexity: reading it copies a text segment's characters out of the parsed string
    ///   (O(its length)), once per read.
    public var text: String {
        get {
            switch characters {
            case .own(let text): text
            case .slice(let source): String(source[range])
            }
        }
        set { characters = .own(newValue) }
    }
    /// Where the piece stands in the parsed text, in UTF-16 code units.
    public var utf16Range: Range<Int>
    /// Where the piece stands in the parsed text, as indices of that `String`.
    public var range: Range<String.Index> {
        didSet {
            // The text must not move with a range the caller edits: it takes its own copy of
            // the characters the old range sliced.
            if case .slice(let source) = characters { characters = .own(String(source[oldValue])) }
        }
    }
    private var characters: Characters

    /// Builds a segment.
    public init(kind: Kind, text: String, utf16Range: Range<Int>, range: Range<String.Index>) {
        self.kind = kind
        self.utf16Range = utf16Range
        self.range = range
        characters = .own(text)
    }

    /// A segment whose text is `source[range]`, copied out only when read.
    init(kind: Kind, slicing source: String, utf16Range: Range<Int>, range: Range<String.Index>) {
        self.kind = kind
        self.utf16Range = utf16Range
        self.range = range
        characters = .slice(of: source)
    }

    /// The emotion's key, or `nil` for text.
    public var emotionKey: String? {
        if case .emotion(let key) = kind { return key }
        return nil
    }

    /// Equal when kind, text (by `String`'s own equality) and both ranges are, however the
    /// characters are held.
    public static func == (lhs: EmotionSegment, rhs: EmotionSegment) -> Bool {
        lhs.kind == rhs.kind && lhs.utf16Range == rhs.utf16Range && lhs.range == rhs.range && lhs.text == rhs.text
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(text)
        hasher.combine(utf16Range)
        hasher.combine(range)
    }
}
