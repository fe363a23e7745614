/// The envelope around every API answer: `{code, message, data, total_count?, has_more?}`.
///
/// `code` 0 is success and is the one required key; `message` reads as "" when absent. `data` is absent or `null` on most failures, so it is optional here;
/// ``value()`` turns a failure into a typed ``ModelsError``.
public struct APIResponse<T: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The server's status code; 0 is success.
    public var code: Int
    /// The server's message ("success", or why it failed).
    public var message: String
    /// The payload, when the server sent one.
    public var data: T?
    /// The server's count of all items; it can disagree with the items sent, so prefer `data`.
    /// `nil` when absent; read from a number or a numeric string, written back as a number.
    public var totalCount: Int?
    /// Whether a further page exists; the API sends 0/1, sometimes `true`/`false`.
    public var hasMore: Bool?

    enum CodingKeys: String, CodingKey {
        case code, message, data
        case totalCount = "total_count"
        case hasMore = "has_more"
    }

    /// Builds an envelope, for tests and for servers written in Swift.
    public init(code: Int = 0, message: String = "success", data: T?, totalCount: Int? = nil, hasMore: Bool? = nil) {
        self.code = code
        self.message = message
        self.data = data
        self.totalCount = totalCount
        self.hasMore = hasMore
    }

    /// Decodes the envelope; `has_more` may be a 0/1 number or a boolean.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
        data = try container.decodeIfPresent(T.self, forKey: .data)
        totalCount = try container.decodeCountIfPresent(forKey: .totalCount)
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .hasMore) {
            hasMore = flag
        } else if let number = try container.decodeIfPresent(Int.self, forKey: .hasMore) {
            hasMore = number != 0
        } else {
            hasMore = nil
        }
    }

    /// Encodes the envelope with the API's keys; `has_more` is written as 0/1 as the API does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(totalCount, forKey: .totalCount)
        try container.encodeIfPresent(hasMore.map { $0 ? 1 : 0 }, forKey: .hasMore)
    }

    /// The payload, or the server's failure as a ``ModelsError``.
    public func value() throws(ModelsError) -> T {
        guard code == 0 else { throw .server(code: code, message: message) }
        guard let data else { throw .missingData }
        return data
    }
}

/// A page of a paged list, as the app shows it.
public struct Page<Element: Sendable & Hashable>: Sendable, Hashable {
    /// The items of this page, in server order.
    public var items: [Element]
    /// Whether the server has a further page (false when it did not say).
    public var hasMore: Bool
    /// The server's `total_count`, kept as sent; may disagree with `items.count`.
    public var reportedTotalCount: Int?

    /// Builds a page.
    public init(items: [Element], hasMore: Bool, reportedTotalCount: Int?) {
        self.items = items
        self.hasMore = hasMore
        self.reportedTotalCount = reportedTotalCount
    }
}

extension APIResponse {
    /// The response as a page of its list, or the server's failure as a ``ModelsError``.
    public func page<Element>() throws(ModelsError) -> Page<Element> where T == [Element] {
        Page(items: try value(), hasMore: hasMore ?? false, reportedTotalCount: totalCount)
    }
}

/// Why an envelope carries no payload: the server marked it as failed, or it promised one and
/// sent none. Errors in the JSON itself are `DecodingError`s; see `DecodingError.summary(decoding:)`.
public enum ModelsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with a non-zero `code`, and its `message`.
    case server(code: Int, message: String)
    /// `code` was 0 but `data` was missing or `null`.
    case missingData

    /// What went wrong, in one line.
    public var description: String {
        switch self {
        case .server(let code, let message): "server error \(code): \(message)"
        case .missingData: "the response has code 0 but no data"
        }
    }
}
