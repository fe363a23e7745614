/// A list the API sometimes sends as `null` or leaves out (`cha_list`, `video_icon.url_list`);
/// both read as an empty list.
@propertyWrapper
public struct EmptyIfNull<Element: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The list's elements; empty when the API sent `null` or no key.
    public var wrappedValue: [Element]

    /// Wraps a list.
    public init(wrappedValue: [Element]) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes a JSON array, or `null` as an empty list.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? [] : try container.decode([Element].self)
    }

    /// Encodes the list as a JSON array (an empty one rather than `null`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// Reads a missing key as an empty list; synthesized `Decodable` code picks this overload.
    public func decode<Element>(
        _ type: EmptyIfNull<Element>.Type, forKey key: Key
    ) throws -> EmptyIfNull<Element> {
        try decodeIfPresent(type, forKey: key) ?? EmptyIfNull(wrappedValue: [])
    }
}
