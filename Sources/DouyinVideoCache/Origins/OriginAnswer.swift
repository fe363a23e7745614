import DouyinSupport
import Foundation

/// What an origin's response means for the bytes that were asked for.
package enum OriginAnswer: Equatable {
    /// A 206: the body is bytes `range` of the resource, no more and no fewer.
    case partial(range: Range<Int64>, info: VideoContentInfo)
    /// A 200: the body is the whole resource from byte 0 (the Range was ignored or If-Range
    /// failed); `info.length` is its Content-Length when it sent one.
    case whole(info: VideoContentInfo)
    /// A 416: the range starts at or past the end; the length when the origin told it.
    case unsatisfiable(length: Int64?)

    /// Reads a response head against the request that produced it. Every number is checked
    /// before it is used: digits only, within ``ResourceMetadata/maxLength``, and a 206's
    /// Content-Length (when sent) equal to the bytes its Content-Range names.
    package static func parse(status: Int, headers: [String: String], for request: OriginRequest) throws(VideoCacheError) -> OriginAnswer {
        var info = VideoContentInfo(
            mimeType: headers["content-type"],
            etag: headers["etag"],
            lastModified: headers["last-modified"]
        )
        // RFC 9112 §6.3: both framings at once is how responses are smuggled; refused, as
        // ResponseFraming refuses it for the other clients (found by the framing fuzz target).
        if let encoding = headers["transfer-encoding"], let length = headers["content-length"] {
            throw .invalidResponse("both Transfer-Encoding (\(encoding)) and Content-Length (\(length))")
        }
        let contentLength = try headers["content-length"].map { value throws(VideoCacheError) -> Int64 in
            // OWS is spaces and tabs (RFC 9110 §5.6.3), not every Unicode space.
            guard let count = ContentRange.number(value.trimmingWhitespace) else {
                throw .invalidResponse("unreadable Content-Length '\(value)'")
            }
            return count
        }
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
            if let contentLength, contentLength != Int64(range.count) {
                throw .invalidResponse("Content-Length \(contentLength) for Content-Range '\(header)'")
            }
            info.length = parsed.length
            return .partial(range: range, info: info)
        case 200:
            info.length = contentLength
            return .whole(info: info)
        case 416:
            return .unsatisfiable(length: headers["content-range"].flatMap(ContentRange.init)?.length)
        default:
            throw .originStatus(status, url: request.url.absoluteString)
        }
    }

    /// How the body of this answer is framed: where its first byte lies in the resource and
    /// where it must end; `nil` for a 416 (no body is read).
    package var framing: BodyFraming? {
        switch self {
        case .partial(let range, _): BodyFraming(offset: range.lowerBound, end: range.upperBound)
        case .whole(let info): BodyFraming(offset: 0, end: info.length)
        case .unsatisfiable: nil
        }
    }
}

/// A response body's place in the resource, chunk by chunk: the one check that keeps a byte
/// the headers did not name from ever being stored or handed to a reader.
///
/// A body carrying more than its Content-Range (or a 200's Content-Length) named is a
/// protocol error as soon as the first byte past that end arrives, before the chunk holding it
/// is used; fewer is a shortfall, found when the body ends.
package struct BodyFraming: Equatable {
    /// The resource offset of the next body byte.
    package private(set) var offset: Int64
    /// Where the body must end (exclusive); `nil` when the headers did not say (a 200
    /// without Content-Length ends where its body does).
    package let end: Int64?

    /// A body whose first byte is resource byte `offset`, ending at `end` when known.
    package init(offset: Int64, end: Int64?) {
        self.offset = offset
        self.end = end
    }

    /// Takes the next `count` body bytes; returns the resource bytes they are. Throws
    /// `invalidResponse` when they run past ``end`` (nothing of them may be used), or past the
    /// largest offset a resource may have.
    package mutating func take(_ count: Int) throws(VideoCacheError) -> Range<Int64> {
        let limit = end ?? ResourceMetadata.maxLength
        guard Int64(count) <= limit - offset else {
            throw .invalidResponse("the body runs past byte \(limit - 1), where its headers said it ends")
        }
        defer { offset += Int64(count) }
        return offset..<(offset + Int64(count))
    }
}

/// A parsed `Content-Range` value: `bytes a-b/N`, `bytes a-b/*` or `bytes */N`.
package struct ContentRange: Equatable {
    /// The bytes sent (half-open), absent in the `*/N` form.
    package var range: Range<Int64>?
    /// The total length, absent when `*`.
    package var length: Int64?

    /// Parses a header value; `nil` when it is not one of the three forms, or a number is not
    /// plain digits or lies past ``ResourceMetadata/maxLength``.
    package init?(_ value: String) {
        let trimmed = String(value.trimmingWhitespace)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = trimmed.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            length = nil
        } else {
            guard let total = Self.number(parts[1]) else { return nil }
            length = total
        }
        if parts[0] == "*" {
            guard length != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
              last >= first, last < ResourceMetadata.maxLength else { return nil }
        range = first..<(last + 1)
    }

    /// A byte count or offset as HTTP writes one: ASCII digits only (no sign, no space), at
    /// most ``ResourceMetadata/maxLength``; `nil` otherwise.
    package static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (48...57).contains($0) }),
              let value = Int64(text), value <= ResourceMetadata.maxLength else { return nil }
        return value
    }
}
