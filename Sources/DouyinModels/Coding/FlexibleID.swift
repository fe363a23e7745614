/// An identifier the API sends as a JSON string in one place and as a number in another,
/// always held as a `String`.
///
/// Numbers are read as 64-bit integers, never through `Double`, so 19-digit ids beyond 2^53
/// (`music.id`, `statistics.aweme_id`) keep every digit. Encoding always writes a string.
@propertyWrapper
public struct FlexibleID: Codable, Sendable, Hashable {
    /// The identifier's decimal or opaque text.
    public var wrappedValue: String

    /// Wraps an identifier.
    public init(wrappedValue: String) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes a JSON string, or a JSON integer that fits in 64 bits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            wrappedValue = text
        } else if let signed = try? container.decode(Int64.self) {
            wrappedValue = String(signed)
        } else if let unsigned = try? container.decode(UInt64.self) {
            wrappedValue = String(unsigned)
        } else {
            let found = (try? container.decode(JSONValue.self))?.kind ?? "an unreadable value"
            throw DecodingError.typeMismatch(String.self, DecodingError.Context(
                codingPath: container.codingPath,
                debugDescription: "Expected an id as a string or an integer but found \(found)."
            ))
        }
    }

    /// Encodes the identifier as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}
