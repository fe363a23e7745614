import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an ``APIClient`` gets and renews an access token (``APIClient/Configuration/authentication``).
///
/// ```swift
/// configuration.authentication = Authentication(
///     token: { try await keychain.savedToken() },
///     refresh: { rejected in try await authServer.renew(rejected) })
/// ```
///
/// Every request carries the current token (`Authorization: Bearer <token>` unless
/// ``authorize`` says otherwise). When the server answers HTTP 401, the token is renewed once for
/// all the calls that hold it: however many 401s arrive together, one ``refresh`` runs; every call
/// waiting on it is sent again, once, with the new token; a call that asks for a token while the
/// refresh runs waits for it rather than going out with the stale one; and a refresh that throws
/// fails every waiting call with ``APIError/authenticationFailed(endpoint:reason:)``. A second 401
/// for the same call (with the new token) is reported as ``APIError/http(endpoint:status:bodyExcerpt:)``.
///
/// - Important: ``token`` and ``refresh`` run in a task of their own, so cancelling a waiting
///   call does not cancel them; the client never runs two of them at once.
public struct Authentication: Sendable {
    /// The token to start with, asked for by the first call and again after a failed refresh
    /// (a saved token, or a sign-in).
    public var token: @Sendable () async throws -> String
    /// A new token to replace `rejected`, which the server answered 401 to.
    public var refresh: @Sendable (_ rejected: String) async throws -> String
    /// Puts `token` on a request; by default sets `Authorization: Bearer <token>`.
    public var authorize: @Sendable (_ request: inout URLRequest, _ token: String) -> Void

    /// A provider of `token` and `refresh`, put on requests by `authorize`
    /// (``bearer(_:_:)`` by default).
    public init(token: @escaping @Sendable () async throws -> String,
                refresh: @escaping @Sendable (_ rejected: String) async throws -> String,
                authorize: @escaping @Sendable (_ request: inout URLRequest, _ token: String) -> Void = Authentication.bearer) {
        self.token = token
        self.refresh = refresh
        self.authorize = authorize
    }

    /// Sets `Authorization: Bearer <token>` on `request`.
    public static func bearer(_ request: inout URLRequest, _ token: String) {
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }
}
