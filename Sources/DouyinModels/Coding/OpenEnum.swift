/// A string-valued API enum that keeps values it does not know as `.unknown(value)` instead of
/// failing, so a new server-side kind never breaks decoding of a whole response.
public protocol OpenEnum: Codable, Sendable, Hashable {
    /// The value as the API spells it.
    var rawValue: String { get }
    /// The case for an API value; an unknown value becomes the `unknown` case.
    init(rawValue: String)
}

extension OpenEnum {
    /// Decodes the API's string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the API's string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
