import Foundation

extension DecodingError {
    /// Where in the JSON the problem is, in the form `data[3].video.play_addr.url_list[0]`.
    public var jsonPath: String {
        let context: Context
        switch self {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .dataCorrupted(let found):
            context = found
        case .keyNotFound(let key, let found):
            return JSONPath.render(found.codingPath + [key])
        @unknown default:
            return ""
        }
        return JSONPath.render(context.codingPath)
    }

    /// One line a person can act on: the JSON path, then what was wrong there.
    public var summary: String {
        let reason: String
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            reason = context.debugDescription
        case .keyNotFound(let key, _):
            reason = "required key \"\(key.stringValue)\" is missing"
        @unknown default:
            reason = "\(self)"
        }
        let path = jsonPath
        return path.isEmpty ? reason : "\(path): \(reason)"
    }

    /// ``summary`` for an error from decoding `data`; when `data` is not valid JSON at all, it
    /// names the first byte where it stops being valid, with its line and column (both from 1),
    /// such as `not valid JSON at byte 57 (line 3, column 12): unexpected ","`.
    ///
    /// Foundation's decoder reports a syntax error with no position on Linux (only "The given
    /// data was not valid JSON."), so the bytes are scanned again here, after the failure.
    public func summary(decoding data: Data) -> String {
        guard case .dataCorrupted(let context) = self, context.codingPath.isEmpty else { return summary }
        let bytes = [UInt8](data)
        guard let offset = JSONSyntax.firstErrorOffset(in: bytes) else { return summary }
        let before = bytes[..<offset]
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = offset - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        let found: String
        if offset >= bytes.count {
            found = "the data ends too early"
        } else if bytes[offset] >= 0x20 && bytes[offset] < 0x7F {
            found = "unexpected \"\(Character(Unicode.Scalar(bytes[offset])))\""
        } else {
            found = "unexpected byte 0x\(String(bytes[offset], radix: 16, uppercase: true))"
        }
        return "not valid JSON at byte \(offset) (line \(line), column \(column)): \(found)"
    }
}

/// Renders a coding path the way a person writes a JSON path.
enum JSONPath {
    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
