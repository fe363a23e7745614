import Foundation

/// MD5 (RFC 1321), for naming cache entries after the URL they hold; not for security.
///
/// The one implementation in the package: DouyinCache's public `MD5` forwards here, and the
/// video cache names its files with it, so both caches name an entry the same way. Written
/// here rather than taken from CryptoKit so Linux and Apple platforms share identical output.
package struct MD5Digest: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    /// Bytes not yet forming a whole 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Starts an empty digest.
    package init() {
        pending.reserveCapacity(64)
    }

    /// The lowercase hex MD5 of a string's UTF-8 bytes.
    package static func hex(_ text: String) -> String {
        hex(Data(text.utf8))
    }

    /// The lowercase hex MD5 of some bytes.
    package static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var digest = MD5Digest()
        digest.update(bytes)
        return digest.finalizeHex()
    }

    /// Feeds more bytes.
    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(buffer: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        update(buffer: Array(bytes))
    }

    /// Feeds more bytes from `Data` without copying them.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(buffer: $0) }
    }

    private mutating func update(buffer: [UInt8]) {
        buffer.withUnsafeBytes { update(buffer: $0) }
    }

    // Written with pointers and `while` loops, no ranges or slices, here, in `finalize` and in
    // `compress`: in a debug build generic code is not specialized, and each step of a range or
    // a slice asked the runtime for a tuple type's metadata, through a once-lock. Eight threads
    // naming entries at once (the cache's stress test) held both threads of Swift's task pool
    // waiting in that lock for 8-40 s at a time under Thread Sanitizer (the test watch's stacks).
    private mutating func update(buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        length &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, buffer.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            offset = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress(block: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while buffer.count - offset >= 64 {
            compress(block: UnsafeRawBufferPointer(start: base + offset, count: 64))
            offset += 64
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: buffer.count - offset))
    }

    /// The 16-byte digest of everything fed so far.
    package func finalize() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        var tail = [UInt8](repeating: 0, count: 1 + (55 - pending.count + 64) % 64 + 8)
        tail[0] = 0x80
        var index = tail.count - 8
        while index < tail.count {
            tail[index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index - (tail.count - 8))))
            index += 1
        }
        copy.update(buffer: tail)
        var digest = [UInt8](repeating: 0, count: 16)
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3]
        index = 0
        while index < 16 {
            digest[index] = UInt8(truncatingIfNeeded: words[index / 4] >> (8 * UInt32(index % 4)))
            index += 1
        }
        return digest
    }

    /// The digest of everything fed so far, as 32 lowercase hex digits.
    package func finalizeHex() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) × 2^32), as RFC 1321 defines the table.
    private static let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }

    private mutating func compress(block: UnsafeRawBufferPointer) {
        var words = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                     UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: block) }
        var a = state.0, b = state.1, c = state.2, d = state.3
        withUnsafeBytes(of: &words) { raw in
            let m = raw.bindMemory(to: UInt32.self)
            Self.constants.withUnsafeBufferPointer { k in
                Self.shifts.withUnsafeBufferPointer { s in
                    var i = 0
                    while i < 64 {
                        var f: UInt32
                        let g: Int
                        if i < 16 {
                            f = (b & c) | (~b & d); g = i
                        } else if i < 32 {
                            f = (d & b) | (~d & c); g = (5 &* i &+ 1) & 15
                        } else if i < 48 {
                            f = b ^ c ^ d; g = (3 &* i &+ 5) & 15
                        } else {
                            f = c ^ (b | ~d); g = (7 &* i) & 15
                        }
                        f = f &+ a &+ k[i] &+ UInt32(littleEndian: m[g])
                        a = d
                        d = c
                        c = b
                        b = b &+ ((f << s[i]) | (f >> (32 - s[i])))
                        i += 1
                    }
                }
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
