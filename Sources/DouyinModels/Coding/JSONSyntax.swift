/// Finds where a text stops being valid JSON (RFC 8259), so a decoding error can name the byte.
///
/// Foundation's `JSONDecoder` reports syntax errors as `DecodingError.dataCorrupted` with an
/// empty coding path; on Linux its underlying error carries no usable offset, so the offset is
/// found here by scanning the bytes again, only after a decode has already failed.
enum JSONSyntax {
    /// The offset of the first byte at which `bytes` stops being one valid JSON value (the
    /// count of bytes when the text ends too early), or `nil` when the syntax is valid.
    static func firstErrorOffset(in bytes: [UInt8]) -> Int? {
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// The open containers, innermost last: `{` or `[`.
        var open: [UInt8] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// Scans one whole value and everything after it; returns the error offset, if any.
        mutating func run() -> Int? {
            expectingValue: while true {
                skipWhitespace()
                guard let byte = current else { return index }
                switch byte {
                case UInt8(ascii: "{"):
                    index += 1
                    skipWhitespace()
                    if current == UInt8(ascii: "}") {
                        index += 1
                    } else {
                        open.append(byte)
                        if let error = scanKeyAndColon() { return error }
                        continue expectingValue
                    }
                case UInt8(ascii: "["):
                    index += 1
                    skipWhitespace()
                    if current == UInt8(ascii: "]") {
                        index += 1
                    } else {
                        open.append(byte)
                        continue expectingValue
                    }
                case UInt8(ascii: "\""):
                    if let error = scanString() { return error }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let error = scanNumber() { return error }
                case UInt8(ascii: "t"):
                    if let error = scanLiteral("true") { return error }
                case UInt8(ascii: "f"):
                    if let error = scanLiteral("false") { return error }
                case UInt8(ascii: "n"):
                    if let error = scanLiteral("null") { return error }
                default:
                    return index
                }
                // After a value: close containers, or go on to the next element.
                while true {
                    skipWhitespace()
                    guard let container = open.last else { return current == nil ? nil : index }
                    guard let byte = current else { return index }
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        if container == UInt8(ascii: "{") {
                            skipWhitespace()
                            if let error = scanKeyAndColon() { return error }
                        }
                        continue expectingValue
                    }
                    let closing = container == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    guard byte == closing else { return index }
                    index += 1
                    open.removeLast()
                }
            }
        }

        /// An object's key and the colon after it.
        mutating func scanKeyAndColon() -> Int? {
            guard current == UInt8(ascii: "\"") else { return index }
            if let error = scanString() { return error }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return index }
            index += 1
            return nil
        }

        /// A string, from its opening quote to after its closing one.
        mutating func scanString() -> Int? {
            index += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = current else { return index }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            index += 1
                            guard let hex = current, hex.isHexDigit else { return index }
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                        return index
                    }
                    index += 1
                case 0x00..<0x20:
                    return index
                default:
                    index += 1
                }
            }
            return index
        }

        /// A number: `-`? int frac? exp?, with no leading zeros.
        mutating func scanNumber() -> Int? {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first.isDigit else { return index }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if current == UInt8(ascii: ".") {
                index += 1
                guard current?.isDigit == true else { return index }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard current?.isDigit == true else { return index }
                skipDigits()
            }
            return nil
        }

        mutating func skipDigits() {
            while current?.isDigit == true { index += 1 }
        }

        /// `true`, `false` or `null`; the offset of the first byte that differs.
        mutating func scanLiteral(_ literal: StaticString) -> Int? {
            for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
                guard current == expected else { return index }
                index += 1
            }
            return nil
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool { isDigit || (self | 0x20 >= UInt8(ascii: "a") && self | 0x20 <= UInt8(ascii: "f")) }
}
