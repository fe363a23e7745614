import Foundation

// The API's value forms, read and written in one place so every model treats a quirk the same
// way. Rules (README, "DouyinModels"): only identity is required; a key that is absent or
// `null` reads as `nil`, or as the documented default for text and lists; a value that is
// present but of a wrong type is a `DecodingError` whose coding path names it.

extension KeyedDecodingContainer {
    /// A required identifier: a JSON string, or an integer that fits in 64 bits (read as an
    /// integer, never through `Double`, so 19-digit ids keep every digit).
    func decodeID(forKey key: Key) throws -> String {
        if let id = try decodeIDIfPresent(forKey: key) { return id }
        if contains(key) {
            throw DecodingError.valueNotFound(String.self, DecodingError.Context(
                codingPath: codingPath + [key], debugDescription: "Expected an id but found null."
            ))
        }
        throw DecodingError.keyNotFound(key, DecodingError.Context(
            codingPath: codingPath, debugDescription: "No value for the required id \"\(key.stringValue)\"."
        ))
    }

    /// An optional identifier in the forms ``decodeID(forKey:)`` reads; `nil` when absent or `null`.
    func decodeIDIfPresent(forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let text = try? decode(String.self, forKey: key) { return text }
        if let signed = try? decode(Int64.self, forKey: key) { return String(signed) }
        if let unsigned = try? decode(UInt64.self, forKey: key) { return String(unsigned) }
        throw mismatch(forKey: key, expected: "an id as a string or an integer")
    }

    /// A count: a JSON integer or a string of decimal digits (`"416403"`), read as an integer,
    /// never through `Double`; `nil` when absent or `null`.
    func decodeCountIfPresent(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let number = try? decode(Int.self, forKey: key) { return number }
        if let text = try? decode(String.self, forKey: key), let number = Int(text) { return number }
        throw mismatch(forKey: key, expected: "a count as an integer or a string of digits")
    }

    /// A moment sent as seconds since 1970 (`create_time`); `nil` when absent or `null`.
    func decodeUnixTimeIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let seconds = try? decode(Int64.self, forKey: key) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        if let seconds = try? decode(Double.self, forKey: key) { return Date(timeIntervalSince1970: seconds) }
        throw mismatch(forKey: key, expected: "seconds since 1970 as a number")
    }

    /// Text whose absence and emptiness mean the same to a reader; "" when absent or `null`.
    func decodeText(forKey key: Key) throws -> String {
        try decodeIfPresent(String.self, forKey: key) ?? ""
    }

    /// A list the API sometimes sends as `null` or leaves out (`cha_list`, `url_list`); empty then.
    func decodeList<Element: Decodable>(_ type: [Element].Type, forKey key: Key) throws -> [Element] {
        try decodeIfPresent(type, forKey: key) ?? []
    }

    /// A type mismatch at `key` that says what was expected and what kind of value was found.
    private func mismatch(forKey key: Key, expected: String) -> DecodingError {
        let found = (try? decode(JSONValue.self, forKey: key))?.kind ?? "an unreadable value"
        return DecodingError.typeMismatch(String.self, DecodingError.Context(
            codingPath: codingPath + [key], debugDescription: "Expected \(expected) but found \(found)."
        ))
    }
}

extension KeyedEncodingContainer {
    /// Writes a moment as the API does: whole seconds since 1970 as an integer, else a number.
    mutating func encodeUnixTimeIfPresent(_ date: Date?, forKey key: Key) throws {
        guard let date else { return }
        let seconds = date.timeIntervalSince1970
        if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) {
            try encode(whole, forKey: key)
        } else {
            try encode(seconds, forKey: key)
        }
    }
}
