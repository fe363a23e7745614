import DouyinKit
import Foundation

/// `douyinkit api <endpoint> [name=value ...] --base <url> [--pages N] [--fallback <dir>] [--file <path>]`:
/// one call of the API through `APIClient`, its `data` re-encoded as JSON on stdout.
///
/// Exit 0 on success; 2 when the server answers `code` ≠ 0 (`code=C message=M` on stderr);
/// 1 on a transport, HTTP or decoding error (one line on stderr). Text from the server is
/// escaped on every line (``TerminalText/escaped(_:)``; on stdout, JSON escapes). `source=network|fallback`
/// on stderr; with `--pages N` also `pages=K`.
enum APICommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "api", summary: "call one endpoint of the backend API and print its data as JSON", usage: usage, run: run)

    static let usage = """
    usage: douyinkit api <endpoint> [name=value ...] --base <url> [--pages N] [--fallback <dir>] [--file <path>]
      endpoints: \(Endpoint.allCases.map(\.rawValue).joined(separator: " "))
    """

    static func run(_ arguments: [String]) async throws {
        var options = try Options(arguments, usage: usage)
        guard let name = options.positional.first else { throw options.missing("<endpoint>") }
        guard let endpoint = Endpoint(rawValue: name) else { throw options.malformed("endpoint", name, "is not one of the endpoints below") }
        var parameters: [(name: String, value: String)] = []
        for pair in options.positional.dropFirst() {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ToolError.usage("parameters are name=value, not \"\(pair)\"\n\(usage)")
            }
            parameters.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        guard let base = options.string("--base") else {
            throw ToolError.usage("missing --base <url>, such as http://127.0.0.1:8080/douyin/\n\(usage)")
        }
        let baseURL = try options.url("--base", base, schemes: ["http", "https"])
        var pageCount: Int?
        if let text = options.string("--pages") {
            guard let number = Int(text), number >= 1 else { throw ToolError.usage("--pages must be a whole number ≥ 1, not \"\(text)\"\n\(usage)") }
            pageCount = number
        }
        var files: [FilePart] = []
        if let path = options.string("--file") {
            // Size checked before reading: a 2 GiB file was read whole into memory before.
            do {
                files.append(try FilePart(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ToolError.failed("--file: " + TerminalText.escaped(error.description))
            }
        }
        var configuration = APIClient.Configuration()
        configuration.log = options.log
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
            default:
                // Endpoint is open now; `Endpoint(rawValue:)` above yields only the 12 known ones.
                throw ToolError.usage(usage)
            }
            FileHandle.standardOutput.write(output + Data("\n".utf8))
        } catch let error as APIError {
            // The server's text (a message, a body excerpt, a URL) is escaped: a CR/LF in it
            // printed a forged `source=fallback` line, and ESC/BEL reached the terminal.
            if case .server(_, let code, let message) = error {
                printError("code=\(code) message=\(TerminalText.escaped(message))")
                exit(2)
            }
            throw ToolError.failed(TerminalText.escaped(error.description))
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

    /// `value` as JSON on one line. JSONEncoder escapes C0 controls (ESC included) in strings
    /// but writes DEL, the C1 controls and U+2028/U+2029 as they are; those become `\\uXXXX`
    /// here too, so no text from the server reaches the terminal as a control (the JSON value
    /// is the same: these characters only occur inside strings).
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        var out = ""
        out.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            switch scalar.value {
            case 0x7F...0x9F, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return Data(out.utf8)
    }
}
