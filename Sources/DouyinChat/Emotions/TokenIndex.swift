/// `[text]` tokens of an emotion table → (key, token), looked up by their exact UTF-8 bytes.
///
/// Why not `[String: String]`: hashing or comparing a non-ASCII `String` normalizes it
/// (canonical equivalence), which made the lookup most of the parse time. Tokens of up to 32
/// bytes — every token of a real table — are packed into four words, so a lookup neither
/// allocates nor normalizes; longer ones go through a byte-array dictionary. Matching is by
/// exact Unicode scalars, the same rule as the rest of the codec.
struct TokenIndex: Sendable {
    /// One token's key and `[text]` form.
    struct Entry: Sendable {
        var key: String
        var token: String
    }

    private var short: [PackedBytes: Entry] = [:]
    private var long: [[UInt8]: Entry] = [:]
    /// The longest token in UTF-8 bytes: longer candidates skip the lookup.
    private(set) var longestToken = 0

    /// Indexes `dict` (key → `[text]`); two keys with the same text resolve to the smaller key.
    init(_ dict: [String: String]) {
        for key in dict.keys.sorted() {
            guard let token = dict[key] else { continue }
            let bytes = Array(token.utf8)
            longestToken = max(longestToken, bytes.count)
            let entry = Entry(key: key, token: token)
            if let packed = bytes.withUnsafeBufferPointer(PackedBytes.init) {
                if short[packed] == nil { short[packed] = entry }
            } else if long[bytes] == nil {
                long[bytes] = entry
            }
        }
    }

    /// The entry whose token is exactly `bytes`; `nil` when none.
    func entry(for bytes: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard bytes.count <= longestToken else { return nil }
        if let packed = PackedBytes(bytes) { return short[packed] }
        return long[Array(bytes)]
    }

    /// The entry whose token is exactly `text`; `nil` when none.
    func entry(for text: String) -> Entry? {
        Array(text.utf8).withUnsafeBufferPointer { entry(for: $0) }
    }
}

/// Up to 32 bytes and their count as a plain hashable value.
private struct PackedBytes: Hashable, Sendable {
    private var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64
    private var count: Int

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= 32 else { return nil }
        // A homogeneous tuple is laid out contiguously, so it can be filled as raw bytes;
        // the unused tail stays zero and `count` tells "ab" from "ab\0".
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
        (w0, w1, w2, w3) = words
        count = bytes.count
    }
}
