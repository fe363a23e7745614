import Foundation

/// RFC 6455 §5 frame encoding and header checks, free of I/O so each rule is testable alone.
package enum WebSocketFrame {
    /// Frame opcodes (§5.2).
    package enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
        var isControl: Bool { rawValue >= 0x8 }
    }

    /// A frame header as read from the server.
    struct Header: Equatable {
        var fin: Bool
        var opcode: Opcode
        var length: UInt64
    }

    /// What the first two bytes say, and how many extended-length bytes follow; or the
    /// violation they show (closed with 1002). With `compression` (permessage-deflate
    /// negotiated) RSV1 marks the first frame of a compressed message (RFC 7692 §6).
    static func parseStart(_ first: UInt8, _ second: UInt8, compression: Bool = false) throws(FrameError)
        -> (fin: Bool, opcode: Opcode, length7: UInt8, extra: Int, compressed: Bool) {
        let compressed = compression && first & 0x40 != 0
        if first & (compression ? 0x30 : 0x70) != 0 { throw FrameError("reserved bits set (RSV \(first >> 4 & 0x7)) without a negotiated extension") }
        guard let opcode = Opcode(rawValue: first & 0x0F) else { throw FrameError("unknown opcode \(first & 0x0F)") }
        if compressed && (opcode.isControl || opcode == .continuation) { throw FrameError("RSV1 set on a \(opcode.isControl ? "control" : "continuation") frame") }
        if second & 0x80 != 0 { throw FrameError("a server frame is masked") }
        let fin = first & 0x80 != 0
        let length7 = second & 0x7F
        if opcode.isControl && !fin { throw FrameError("fragmented control frame") }
        if opcode.isControl && length7 > 125 { throw FrameError("control frame longer than 125 bytes") }
        return (fin, opcode, length7, length7 == 126 ? 2 : length7 == 127 ? 8 : 0, compressed)
    }

    /// The payload length from the extended length bytes; rejects non-minimal encodings and
    /// 64-bit lengths with the top bit set (§5.2).
    static func extendedLength(_ bytes: [UInt8]) throws(FrameError) -> UInt64 {
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        if bytes.count == 2, value < 126 { throw FrameError("16-bit length \(value) should have used the 7-bit form") }
        if bytes.count == 8 {
            if value >> 63 != 0 { throw FrameError("64-bit length with the most significant bit set") }
            if value < 65536 { throw FrameError("64-bit length \(value) should have used a shorter form") }
        }
        return value
    }

    /// A masked client frame (§5.3): FIN set, the given opcode, the shortest length form;
    /// `compressed` sets RSV1 (a permessage-deflate message's first frame).
    package static func encode(_ opcode: Opcode, payload: [UInt8], fin: Bool = true, compressed: Bool = false, mask: (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(payload.count + 14)
        frame.append((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(UInt8(count >> 8))
            frame.append(UInt8(count & 0xFF))
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        let key = [mask.0, mask.1, mask.2, mask.3]
        frame.append(contentsOf: key)
        let start = frame.count
        frame.append(contentsOf: payload)
        // Eight bytes at a time: a 16 MiB message masked byte by byte takes seconds in a
        // debug build. The key repeats every 4 bytes, so an 8-byte word is the key twice.
        frame.withUnsafeMutableBytes { raw in
            let body = UnsafeMutableRawBufferPointer(rebasing: raw[start...])
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { for index in 0..<8 { $0[index] = key[index & 3] } }
            let words = body.count / 8
            for index in 0..<words {
                let offset = index * 8
                body.storeBytes(of: body.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ word, toByteOffset: offset, as: UInt64.self)
            }
            for index in (words * 8)..<body.count { body[index] ^= key[index & 3] }
        }
        return frame
    }

    /// A close frame's payload: the code and a UTF-8 reason cut to fit 125 bytes.
    package static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = Array(reason.utf8.prefix(123))
        while !isValidUTF8(reasonBytes) { reasonBytes.removeLast() }
        payload += reasonBytes
        return payload
    }

    /// The code and reason of a received close frame (1005 when it has none), or the violation.
    package static func parseClose(_ payload: [UInt8]) throws(FrameError) -> (code: UInt16, reason: String) {
        if payload.isEmpty { return (1005, "") }
        if payload.count == 1 { throw FrameError("close frame with a 1-byte payload") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        // §7.4: codes a peer may send; 1005, 1006 and 1015 are never sent.
        let valid = (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
        if !valid { throw FrameError("close code \(code) is not one a peer may send") }
        guard isValidUTF8(payload[2...]) else { throw FrameError("close reason is not UTF-8", closeCode: 1007) }
        return (code, String(decoding: payload[2...], as: UTF8.self))
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past
    /// U+10FFFF).
    package static func isValidUTF8<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if let valid = bytes.withContiguousStorageIfAvailable({ text(of: $0) != nil }) { return valid }
        return Array(bytes).withUnsafeBufferPointer { text(of: $0) != nil }
    }

    /// The text a message's `bytes` spell, or `nil` when they are not well-formed UTF-8.
    ///
    /// One pass in the standard library's compiled validator: the per-byte generic loop this
    /// replaced (`allSatisfy`, then `UTF8.decode`) ran unspecialised in a debug build, ~40 ns a
    /// byte, 5 of the 7 s of CPU a debug `ws echo` spent on Autobahn case 12.1.15 (1000 text
    /// messages of 128 KiB).
    package static func text(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// Why a frame was refused, with the close code to send.
    package struct FrameError: Error, Equatable {
        var reason: String
        var closeCode: UInt16
        package init(_ reason: String, closeCode: UInt16 = 1002) {
            self.reason = reason
            self.closeCode = closeCode
        }
    }
}
