import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a call returned, and from where.
public struct APIResult<Value: Sendable>: Sendable {
    /// Where an answer came from.
    public enum Source: String, Sendable, Hashable {
        /// The server answered.
        case network
        /// The network failed and ``FallbackStore`` answered (an app shows "offline").
        case fallback
    }

    /// The decoded `data`.
    public var value: Value
    /// Where it came from.
    public var source: Source
    /// The envelope's `has_more` (false when absent, and always false from the fallback past page 0).
    public var hasMore: Bool
    /// The envelope's `total_count` as sent; `nil` when absent. Do not page by it: servers
    /// report fewer than they hold.
    public var reportedTotalCount: Int?
    /// Attempts made over the network (1 without retries; 0 only if the first could not start).
    public var attempts: Int
    /// The failure the fallback stood in for; `nil` from the network.
    public var fallbackReason: APIError?
    /// The HTTP answer's status, headers and URL; `nil` from the fallback.
    public var response: ResponseMetadata? = nil
}

/// The HTTP side of an answer, beside its decoded value.
public struct ResponseMetadata: Sendable, Hashable {
    /// The HTTP status, such as 200.
    public var status: Int
    /// The headers as received, by name as the server spelled it; ``header(_:)`` looks one up
    /// whatever its case.
    public var headers: [String: String]
    /// The URL that answered (after any redirect); `nil` when URLSession gave none.
    public var url: URL?

    /// Metadata with these values.
    public init(status: Int, headers: [String: String], url: URL?) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    /// The value of header `name` (case-insensitive); `nil` when absent.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }

    init(_ response: HTTPURLResponse) {
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String { headers[key] = "\(value)" }
        }
        self.init(status: response.statusCode, headers: headers, url: response.url)
    }
}

/// How much of a request's body has been sent, reported while a multipart upload (or any
/// request with a body) goes out.
public struct UploadProgress: Sendable, Hashable {
    /// Body bytes sent so far.
    public var bytesSent: Int64
    /// The body's size in bytes; 0 when URLSession does not know it.
    public var totalBytes: Int64

    /// Progress with these counts.
    public init(bytesSent: Int64, totalBytes: Int64) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
    }

    /// `bytesSent / totalBytes`, from 0 to 1; 0 when the size is unknown.
    public var fractionCompleted: Double {
        totalBytes > 0 ? min(1, Double(bytesSent) / Double(totalBytes)) : 0
    }
}
