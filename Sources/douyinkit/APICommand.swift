import DouyinKit
import Foundation

/// `douyinkit api <endpoint> [name=value ...] --base <url> [--pages N] [--fallback <dir>] [--file <path>]`:
/// one call of the API through `APIClient`, its `data` re-encoded as JSON on stdout.
///
/// Exit 0 on success; 2 when the server answers `code` ≠ 0 (`code=C message=M` on stderr);
/// 1 on a transport, HTTP or decoding error (one line on stderr). `source=network|fallback`
/// on stderr; with `--pages N` also `pages=K`.
enum APICommand {
    static let usage = """
    usage: douyinkit api <endpoint> [name=value ...] --base <url> [--pages N] [--fallback <dir>] [--file <path>]
      endpoints: \(Endpoint.allCases.map(\.rawValue).joined(separator: " "))
    """

    static func run(_ arguments: [String]) async throws {
        var options = try Options(arguments, usage: usage)
        guard let name = options.positional.first, let endpoint = Endpoint(rawValue: name) else { throw ToolError.usage(usage) }
        var parameters: [(name: String, value: String)] = []
        for pair in options.positional.dropFirst() {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ToolError.usage("parameters are name=value, not \"\(pair)\"\n\(usage)")
            }
            parameters.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        guard let base = options.string("--base"), let baseURL = URL(string: base), baseURL.scheme != nil else {
            throw ToolError.usage("--base <url> is required, such as http://127.0.0.1:8080/douyin/\n\(usage)")
        }
        var pageCount: Int?
        if let text = options.string("--pages") {
            guard let number = Int(text), number >= 1 else { throw ToolError.usage("--pages must be a whole number ≥ 1, not \"\(text)\"\n\(usage)") }
            pageCount = number
        }
        var files: [FilePart] = []
        if let path = options.string("--file") {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                files.append(FilePart(filename: URL(fileURLWithPath: path).lastPathComponent, data: data))
            } catch {
                throw ToolError.failed("cannot read --file \(path): \(error.localizedDescription)")
            }
        }
        var configuration = APIClient.Configuration()
        if let fallback = options.string("--fallback") {
            configuration.fallback = FallbackStore(directory: URL(fileURLWithPath: fallback))
        }
        try options.finish()
        if endpoint == .groupChatImage || endpoint == .groupChatImages, files.isEmpty {
            throw ToolError.usage("\(endpoint) takes --file <path>\n\(usage)")
        }
        if pageCount != nil, endpoint.defaultPageSize == nil {
            throw ToolError.usage("--pages works with a paged endpoint (aweme/post, aweme/favorite, comment/list, groupchat/list)\n\(usage)")
        }
        let client = APIClient(baseURL: baseURL, configuration: configuration)
        do {
            let output: Data
            switch endpoint {
            case .visitorCreate: output = try await call(client, APIRequest<Visitor>(endpoint: endpoint, parameters: parameters))
            case .user: output = try await call(client, APIRequest<User>(endpoint: endpoint, parameters: parameters))
            case .awemePost, .awemeFavorite:
                output = try await list(client, APIRequest<[Aweme]>(endpoint: endpoint, parameters: parameters), pages: pageCount)
            case .commentList:
                output = try await list(client, APIRequest<[Comment]>(endpoint: endpoint, parameters: parameters), pages: pageCount)
            case .groupChatList:
                output = try await list(client, APIRequest<[GroupChat]>(endpoint: endpoint, parameters: parameters), pages: pageCount)
            case .commentPost: output = try await call(client, APIRequest<Comment>(endpoint: endpoint, parameters: parameters))
            case .groupChatText, .groupChatImage:
                output = try await call(client, APIRequest<GroupChat>(endpoint: endpoint, parameters: parameters, files: files))
            case .groupChatImages:
                output = try await call(client, APIRequest<[GroupChat]>(endpoint: endpoint, parameters: parameters, files: files))
            case .commentDelete, .groupChatDelete:
                // The factory's request accepts `data: null`; the parameters are the caller's.
                var request = APIRequest<NoContent>.commentDelete(cid: "", udid: "")
                request.endpoint = endpoint
                request.parameters = parameters
                _ = try await call(client, request)
                output = Data("null".utf8)
            }
            FileHandle.standardOutput.write(output + Data("\n".utf8))
        } catch let error as APIError {
            if case .server(_, let code, let message) = error {
                printError("code=\(code) message=\(message)")
                exit(2)
            }
            throw ToolError.failed(error.description)
        }
    }

    static func call<Response: Encodable>(_ client: APIClient, _ request: APIRequest<Response>) async throws -> Data {
        let result = try await client.send(request)
        printError("source=\(result.source.rawValue)")
        return try encode(result.value)
    }

    static func list<Item: Encodable>(_ client: APIClient, _ request: APIRequest<[Item]>, pages: Int?) async throws -> Data {
        guard let pages else { return try await call(client, request) }
        var items: [Item] = []
        var count = 0
        var sources: Set<String> = []
        for try await page in client.pages(request, limit: pages) {
            items += page.items
            count += 1
            sources.insert(page.source.rawValue)
        }
        // A mixed run (network, then the fallback) reports the fallback: some of it is stale.
        printError("source=\(sources.contains("fallback") ? "fallback" : "network")")
        printError("pages=\(count)")
        return try encode(items)
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
