import DouyinSupport
import DouyinTestSupport
import Foundation

/// The transports the contract suite runs against, as Media3 runs `DataSourceContractTest`
/// against every DataSource: each case makes a fresh instance (a thread of its own for
/// libcurl, a session of its own for URLSession), so no test shares connections or counters
/// with another.
enum HTTPTransportKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// ``CurlTransport``: libcurl's multi interface (Linux only).
    case curl
    /// ``URLSessionTransport``: FoundationNetworking's URLSession here, URLSession on Apple.
    case urlSession

    /// The kinds this platform has.
    static var available: [HTTPTransportKind] {
        #if os(Linux)
        allCases
        #else
        [.urlSession]
        #endif
    }

    var description: String { rawValue }

    /// A new transport of this kind.
    func make() -> any HTTPTransport {
        switch self {
        case .curl:
            #if os(Linux)
            CurlTransport()
            #else
            preconditionFailure("libcurl's transport is Linux-only")
            #endif
        case .urlSession:
            URLSessionTransport()
        }
    }
}

/// The error a test's body limit throws (``HTTPBody/collect(limit:orThrow:)``).
struct BodyTooLarge: Error, Equatable {}

/// The bytes of a whole body, through ``HTTPBody/collect(limit:orThrow:)`` with a limit far
/// above anything a test serves.
func collect(_ response: HTTPResponse) async throws -> Data {
    try await response.body.collect(limit: 256 << 20, orThrow: BodyTooLarge())
}

/// `count` bytes from a seeded generator (the seed names them in a failure).
func seededBytes(_ count: Int, seed: UInt64) -> Data {
    var random = SeededRandom(seed: seed)
    return Data(random.bytes(count))
}

/// The `URLError` code of `error`, or `nil` when it is not a `URLError`.
func urlErrorCode(_ error: (any Error)?) -> URLError.Code? {
    (error as? URLError)?.code
}
