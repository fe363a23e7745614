import DouyinAPI
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The owner of Fixtures/api/user.json and the first aweme of feed.json, as the fixtures hold them.
enum Known {
    static let uid = "97795069001"
    static let awemeID = "6600000000000000001"
    /// The visitor udid of the fixtures' comments and chat messages.
    static let fixtureUDID = "9f78a27d53d3ddf798a77d331c450001"
}

/// A client of `backend` (``APIClient/Configuration/patient``, then `configure`); retries wait
/// on `clock`.
func makeClient(_ backend: LocalBackend, clock: TestClock = TestClock(), configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient {
    var configuration = APIClient.Configuration.patient
    configure(&configuration)
    return APIClient(baseURL: backend.baseURL, configuration: configuration, clock: clock, random: { 0.999 })
}

/// The APIError a call threw, or `nil` when it threw something else or nothing.
func apiError<T>(_ body: () async throws -> T) async -> APIError? {
    do {
        _ = try await body()
        return nil
    } catch let error as APIError {
        return error
    } catch {
        return nil
    }
}

/// A PNG of 5×7 pixels' header: enough for the backend to read its size.
let tinyPNG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8) + Data([0, 0, 0, 5, 0, 0, 0, 7, 8, 6, 0, 0, 0])

/// The backend's `/_debug/auth` answer: whether tokens are checked, the current one, how many
/// tokens `auth/token` issued (the refreshes clients made) and how many calls got a 401.
struct AuthReport: Decodable {
    var enabled: Bool
    var token: String?
    var issued: Int
    var rejected: Int
}

/// Sets (POST with `settings`) or reads (GET, `settings` nil) the backend's token check, over a
/// URLSession of its own (not the client's under test).
@discardableResult
func backendAuth(_ backend: LocalBackend, _ settings: [String: Bool]? = nil) async throws -> AuthReport {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(backend.port)/_debug/auth")!)
    if let settings {
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: settings)
    }
    let data: Data = try await withCheckedThrowingContinuation { continuation in
        URLSession.shared.dataTask(with: request) { data, _, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: data ?? Data()) }
        }.resume()
    }
    return try JSONDecoder().decode(AuthReport.self, from: data)
}

/// `POST auth/token`'s `data`: a new access token from the backend.
struct TokenGrant: Decodable, Sendable {
    var token: String
    enum CodingKeys: String, CodingKey { case token }
}

extension APIRequest where Response == TokenGrant {
    /// The backend's `POST auth/token` (on with `/_debug/auth`), an endpoint the client does not know.
    static var token: Self { Self(endpoint: Endpoint(path: "auth/token", method: .post)) }
}
