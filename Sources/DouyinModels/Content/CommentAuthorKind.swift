import Foundation

/// Who wrote a comment: `user_type` "user" or "visitor", anything else kept as sent.
public enum CommentAuthorKind: OpenEnum {
    /// A registered account; ``Comment/user`` is set.
    case user
    /// An anonymous visitor; ``Comment/visitor`` is set.
    case visitor
    /// A kind this version does not know.
    case unknown(String)

    /// The kind for an API value.
    public init(rawValue: String) {
        switch rawValue {
        case "user": self = .user
        case "visitor": self = .visitor
        default: self = .unknown(rawValue)
        }
    }

    /// The API's spelling.
    public var rawValue: String {
        switch self {
        case .user: "user"
        case .visitor: "visitor"
        case .unknown(let value): value
        }
    }
}
