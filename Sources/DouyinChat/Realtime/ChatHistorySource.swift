import DouyinModels
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where ``ChatConnection`` fetches the newest messages after a reconnect, to fill the gap of
/// the outage (`groupchat/list` page 0).
public protocol ChatHistorySource: Sendable {
    /// The newest page of messages, in any order.
    func latestMessages() async throws -> [GroupChat]
}

/// `GET <base>groupchat/list?page=0&size=N` of the demo backend, decoded as
/// `APIResponse<[GroupChat]>`. A plain fetch, so DouyinChat needs no more of the API client.
public struct GroupChatListHistory: ChatHistorySource {
    /// The API's base URL, such as `http://127.0.0.1:8080/douyin/`.
    public var baseURL: URL
    /// Messages asked for; 20 by default (the API's chat page size).
    public var pageSize: Int

    /// A source for the backend at `baseURL`.
    public init(baseURL: URL, pageSize: Int = 20) {
        self.baseURL = baseURL
        self.pageSize = pageSize
    }

    /// The backend's `http(s)` base for a `ws(s)://HOST:PORT/douyin/groupchat` push URL.
    public init?(pushURL: URL, pageSize: Int = 20) {
        guard var components = URLComponents(url: pushURL, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme == "wss" ? "https" : "http"
        var path = components.path
        if path.hasSuffix("/groupchat") { path.removeLast("groupchat".count) }
        if !path.hasSuffix("/") { path += "/" }
        components.path = path
        components.query = nil
        guard let url = components.url else { return nil }
        self.init(baseURL: url, pageSize: pageSize)
    }

    /// Fetches and decodes page 0; throws ``ChatError/gapFillFailed(_:)``.
    public func latestMessages() async throws -> [GroupChat] {
        var components = URLComponents(url: baseURL.appendingPathComponent("groupchat/list"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "page", value: "0"), URLQueryItem(name: "size", value: String(pageSize))]
        let session = URLSessions.make()
        defer { URLSessions.tearDown(session) }
        do {
            let (data, response) = try await session.data(from: components.url!)
            if let http = response as? HTTPURLResponse, http.statusCode != 200 { throw ChatError.gapFillFailed("HTTP \(http.statusCode)") }
            let envelope = try JSONDecoder().decode(APIResponse<[GroupChat]>.self, from: data)
            guard envelope.code == 0 else { throw ChatError.gapFillFailed("code=\(envelope.code) message=\(envelope.message)") }
            return envelope.data ?? []
        } catch let error as ChatError {
            throw error
        } catch {
            throw ChatError.gapFillFailed("\(error)")
        }
    }
}
