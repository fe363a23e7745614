import Foundation

/// One ranged request to an origin.
public struct OriginRequest: Sendable, Hashable {
    /// The resource.
    public var url: URL
    /// The bytes wanted; the upper bound may lie past the end of the resource.
    public var range: Range<Int64>
    /// The `If-Range` validator (the stored ETag or Last-Modified), if any.
    public var ifRange: String?

    /// A request for `range` of `url`.
    public init(url: URL, range: Range<Int64>, ifRange: String? = nil) {
        self.url = url
        self.range = range
        self.ifRange = ifRange
    }
}

/// An origin's answer: status and headers, then the body as it arrives.
public struct OriginResponse: Sendable {
    /// The HTTP status (or the equivalent for a non-HTTP origin).
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body in chunks; ends early with an error when the transfer breaks. Stopping the
    /// iteration (or cancelling its task) cancels the transfer.
    public var body: AsyncThrowingStream<Data, any Error>

    /// A response with the given parts.
    public init(status: Int, headers: [String: String], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Where a video cache gets the bytes it does not hold: an HTTP origin, a file, a test stub.
public protocol VideoOrigin: Sendable {
    /// Starts fetching `request.range` and returns once the response head has arrived.
    func fetch(_ request: OriginRequest) async throws -> OriginResponse
}

/// What an origin's response means for the bytes that were asked for.
enum OriginAnswer: Equatable {
    /// A 206: the body is bytes `range` of the resource.
    case partial(range: Range<Int64>, info: VideoContentInfo)
    /// A 200: the body is the whole resource from byte 0 (the Range was ignored or If-Range failed).
    case whole(info: VideoContentInfo)
    /// A 416: the range starts at or past the end; the length when the origin told it.
    case unsatisfiable(length: Int64?)

    /// Reads a response head against the request that produced it.
    static func parse(status: Int, headers: [String: String], for request: OriginRequest) throws(VideoCacheError) -> OriginAnswer {
        var info = VideoContentInfo(
            mimeType: headers["content-type"],
            etag: headers["etag"],
            lastModified: headers["last-modified"]
        )
        switch status {
        case 206:
            guard let header = headers["content-range"] else {
                throw .invalidResponse("206 without Content-Range")
            }
            guard let parsed = ContentRange(header), let range = parsed.range else {
                throw .invalidResponse("unreadable Content-Range '\(header)'")
            }
            guard range.lowerBound == request.range.lowerBound, range.upperBound <= request.range.upperBound else {
                throw .invalidResponse("Content-Range '\(header)' for requested bytes \(request.range.lowerBound)-\(request.range.upperBound - 1)")
            }
            if let length = parsed.length, range.upperBound > length {
                throw .invalidResponse("Content-Range '\(header)' ends past the length")
            }
            info.length = parsed.length
            return .partial(range: range, info: info)
        case 200:
            info.length = headers["content-length"].flatMap { Int64($0) }
            return .whole(info: info)
        case 416:
            return .unsatisfiable(length: headers["content-range"].flatMap(ContentRange.init)?.length)
        default:
            throw .originStatus(status, url: request.url.absoluteString)
        }
    }
}

/// A parsed `Content-Range` value: `bytes a-b/N`, `bytes a-b/*` or `bytes */N`.
struct ContentRange: Equatable {
    /// The bytes sent (half-open), absent in the `*/N` form.
    var range: Range<Int64>?
    /// The total length, absent when `*`.
    var length: Int64?

    /// Parses a header value; `nil` when it is not one of the three forms.
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = trimmed.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            length = nil
        } else {
            guard let total = Int64(parts[1]), total >= 0 else { return nil }
            length = total
        }
        if parts[0] == "*" {
            guard length != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
              first >= 0, last >= first, last < Int64.max else { return nil }
        range = first..<(last + 1)
    }
}
