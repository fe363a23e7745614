import Foundation

/// A moment the API sends as whole seconds since 1970 (`create_time`), held as a `Date`.
///
/// A plain `JSONEncoder` would write a `Date` as seconds since 2001; this wrapper writes the
/// API's own form back, so no decoder or encoder strategy needs setting.
@propertyWrapper
public struct UnixTime: Codable, Sendable, Hashable {
    /// The moment.
    public var wrappedValue: Date

    /// Wraps a moment.
    public init(wrappedValue: Date) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes a JSON number of seconds since 1970.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Int64.self) {
            wrappedValue = Date(timeIntervalSince1970: TimeInterval(seconds))
        } else {
            wrappedValue = Date(timeIntervalSince1970: try container.decode(Double.self))
        }
    }

    /// Encodes the moment as seconds since 1970, an integer when it is whole.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        let seconds = wrappedValue.timeIntervalSince1970
        if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) {
            try container.encode(whole)
        } else {
            try container.encode(seconds)
        }
    }
}
