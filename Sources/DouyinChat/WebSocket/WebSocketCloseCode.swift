/// A WebSocket close status code (RFC 6455 §7.4 and the IANA registry): what a closing side
/// says about why. The named cases are the registered codes; ``other(_:)`` carries any other
/// (3000-4999 are the application's). ``init(_:)`` always picks the named case when there is
/// one, so codes compare by number; an integer literal works too (`.closed(code: 1008, …)`).
public enum WebSocketCloseCode: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// 1000: the purpose of the connection is fulfilled.
    case normal
    /// 1001: the server is going down or the client navigating away; retried by `ChatConnection`.
    case goingAway
    /// 1002: the peer broke the protocol.
    case protocolError
    /// 1003: a kind of data the side cannot accept (binary to a text-only endpoint …).
    case unsupportedData
    /// 1005: the close frame carried no code (never sent on the wire).
    case noStatus
    /// 1006: the connection ended without a close frame (never sent on the wire).
    case abnormal
    /// 1007: a message's data did not match its type (text that is not UTF-8, a compressed
    /// message that does not inflate).
    case invalidPayload
    /// 1008: the message broke the endpoint's policy; `ChatConnection` gives up at once.
    case policyViolation
    /// 1009: a message too big to process (over the client's 16 MiB limit by default).
    case messageTooBig
    /// 1010: the client expected an extension the server did not negotiate.
    case mandatoryExtension
    /// 1011: the server met an unexpected condition; retried by `ChatConnection`.
    case internalError
    /// 1012: the server is restarting.
    case serviceRestart
    /// 1013: try again later (the server is overloaded).
    case tryAgainLater
    /// 1014: a gateway or proxy got an invalid answer upstream.
    case badGateway
    /// 1015: the TLS handshake failed (never sent on the wire).
    case tlsHandshake
    /// A code without a name here (3000-3999 registered by libraries, 4000-4999 private); build
    /// it through ``init(_:)`` so a registered number becomes its named case.
    case other(UInt16)

    /// The case for `code`: a named one when the number is registered, else ``other(_:)``.
    public init(_ code: UInt16) {
        let named: [WebSocketCloseCode] = [.normal, .goingAway, .protocolError, .unsupportedData, .noStatus, .abnormal, .invalidPayload,
                                           .policyViolation, .messageTooBig, .mandatoryExtension, .internalError, .serviceRestart,
                                           .tryAgainLater, .badGateway, .tlsHandshake]
        self = named.first { $0.code == code } ?? .other(code)
    }

    /// The case for an integer literal, as ``init(_:)``.
    public init(integerLiteral value: UInt16) {
        self.init(value)
    }

    /// The number on the wire.
    public var code: UInt16 {
        switch self {
        case .normal: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unsupportedData: 1003
        case .noStatus: 1005
        case .abnormal: 1006
        case .invalidPayload: 1007
        case .policyViolation: 1008
        case .messageTooBig: 1009
        case .mandatoryExtension: 1010
        case .internalError: 1011
        case .serviceRestart: 1012
        case .tryAgainLater: 1013
        case .badGateway: 1014
        case .tlsHandshake: 1015
        case .other(let code): code
        }
    }

    /// The number, as logs and error messages print it (`1008`).
    public var description: String { String(code) }

    // Equal by number, so `.other(1008)` built by hand still equals `.policyViolation`.
    /// Equal when the numbers are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the number.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
