/// `[text]` tokens of an emotion table → (key, token), looked up by their exact UTF-8 bytes.
///
/// Why not `[String: String]`: hashing or comparing a non-ASCII `String` normalizes it
/// (canonical equivalence), which made the lookup most of the parse time. Tokens of up to 32
/// bytes — every token of a real table — are packed into four words and found in an
/// open-addressing table of their own with a multiply-xor hash: a lookup neither allocates,
/// normalizes nor runs SipHash (which, through `Dictionary`, was a quarter of the parse time
/// in a profile). The table is built once from the emotion table and only ever probed, so a
/// hash that is not seeded per process costs nothing an attacker could use: a probe ends at
/// the first empty slot, and the table is at most half full. Longer tokens go through a
/// byte-array dictionary. Matching is by exact Unicode scalars, the same rule as the rest of
/// the codec.
struct TokenIndex: Sendable {
    /// One token's key and `[text]` form.
    struct Entry: Sendable {
        var key: String
        var token: String
    }

    /// Every short token's entry, in the order they were indexed.
    private var entries: [Entry] = []
    /// Every short token's packed bytes, parallel to `entries`.
    private var packed: [PackedBytes] = []
    /// Open addressing: a slot holds an index into `entries`, or -1 when empty.
    private var slots: [Int32]
    /// How far right a hash is shifted to give a slot (64 − log2 of the slot count).
    private var shift: UInt64
    private var long: [[UInt8]: Entry] = [:]
    /// The longest token in UTF-8 bytes: longer candidates skip the lookup.
    private(set) var longestToken = 0

    /// Indexes `dict` (key → `[text]`); two keys with the same text resolve to the smaller key.
    init(_ dict: [String: String]) {
        // At least twice as many slots as tokens, a power of two: probes stay short.
        var bits: UInt64 = 4
        while (1 << bits) < 2 * dict.count { bits += 1 }
        slots = Array(repeating: -1, count: 1 << bits)
        shift = 64 - bits
        for key in dict.keys.sorted() {
            guard let token = dict[key] else { continue }
            let bytes = Array(token.utf8)
            longestToken = max(longestToken, bytes.count)
            let entry = Entry(key: key, token: token)
            if let bytesPacked = bytes.withUnsafeBufferPointer(PackedBytes.init) {
                var slot = bytesPacked.slot(shift: shift)
                while slots[slot] >= 0, packed[Int(slots[slot])] != bytesPacked { slot = (slot + 1) & (slots.count - 1) }
                // The smaller key was indexed first (keys in sorted order) and keeps the token.
                guard slots[slot] < 0 else { continue }
                slots[slot] = Int32(entries.count)
                entries.append(entry)
                packed.append(bytesPacked)
            } else if long[bytes] == nil {
                long[bytes] = entry
            }
        }
    }

    /// The entry whose token is exactly `bytes`; `nil` when none.
    func entry(for bytes: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard bytes.count <= longestToken else { return nil }
        guard let wanted = PackedBytes(bytes) else { return long[Array(bytes)] }
        var slot = wanted.slot(shift: shift)
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let index = Int(slots[slot])
                if index < 0 { return nil }
                if packed[index] == wanted { return entries[index] }
                slot = (slot + 1) & (slots.count - 1)
            }
        }
    }

    /// The entry whose token is exactly `text`; `nil` when none.
    func entry(for text: String) -> Entry? {
        Array(text.utf8).withUnsafeBufferPointer { entry(for: $0) }
    }
}

/// Up to 32 bytes and their count as a plain comparable value.
private struct PackedBytes: Equatable, Sendable {
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

    /// A slot of a table of 2^(64 − `shift`) slots: the words folded together, then one
    /// multiply by a large odd constant (Fibonacci hashing), whose high bits mix every input bit.
    @inline(__always)
    func slot(shift: UInt64) -> Int {
        let folded = w0 ^ (w1 &* 0x9E37_79B9_7F4A_7C15) ^ (w2 &* 0xC2B2_AE3D_27D4_EB4F) ^ (w3 &* 0x1656_67B1_9E37_79F9) ^ UInt64(count)
        let mixed = (folded ^ (folded >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> shift)
    }
}
