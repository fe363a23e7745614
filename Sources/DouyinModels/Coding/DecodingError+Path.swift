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
