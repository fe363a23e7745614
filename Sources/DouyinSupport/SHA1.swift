/// SHA-1 (RFC 3174), for the WebSocket opening handshake's `Sec-WebSocket-Accept` (RFC 6455
/// §4.2.2); not for security (SHA-1 is broken for collision resistance).
///
/// Written here once, like MD5, so Linux and Apple platforms share one implementation without
/// CryptoKit or a C library.
package struct SHA1: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// Bytes not yet forming a whole 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Starts an empty digest.
    package init() {
        pending.reserveCapacity(64)
    }

    /// The 20-byte SHA-1 of `bytes`.
    package static func digest<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    /// The lowercase hex SHA-1 of `bytes`.
    package static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest(bytes) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Feeds more bytes.
    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            pending.append(byte)
            length &+= 1
            if pending.count == 64 {
                compress(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Pads, processes the last blocks and returns the 20-byte digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for start in stride(from: 0, to: tail.count, by: 64) { compress(tail[start..<start + 64]) }
        pending.removeAll()
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    private mutating func compress<Block: Collection>(_ block: Block) where Block.Element == UInt8, Block.Index == Int {
        var w = [UInt32](repeating: 0, count: 80)
        let base = block.startIndex
        for t in 0..<16 {
            w[t] = UInt32(block[base + 4 * t]) << 24 | UInt32(block[base + 4 * t + 1]) << 16
                | UInt32(block[base + 4 * t + 2]) << 8 | UInt32(block[base + 4 * t + 3])
        }
        for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
        var (a, b, c, d, e) = h
        for t in 0..<80 {
            let f: UInt32, k: UInt32
            switch t {
            case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
            case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
            case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
            default: f = b ^ c ^ d; k = 0xCA62_C1D6
            }
            let temp = rotl(a, 5) &+ f &+ e &+ w[t] &+ k
            e = d
            d = c
            c = rotl(b, 30)
            b = a
            a = temp
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }

    @inline(__always) private func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
