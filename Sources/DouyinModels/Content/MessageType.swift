import Foundation

/// A group chat message's kind: `msg_type` "text", "image", "system", anything else kept.
public enum MessageType: OpenEnum {
    /// Text, possibly with `[emotion]` names.
    case text
    /// A picture; the `pic_*` fields are set.
    case image
    /// A notice from the service.
    case system
    /// A kind this version does not know.
    case unknown(String)

    /// The kind for an API value.
    public init(rawValue: String) {
        switch rawValue {
        case "text": self = .text
        case "image": self = .image
        case "system": self = .system
        default: self = .unknown(rawValue)
        }
    }

    /// The API's spelling.
    public var rawValue: String {
        switch self {
        case .text: "text"
        case .image: "image"
        case .system: "system"
        case .unknown(let value): value
        }
    }
}
