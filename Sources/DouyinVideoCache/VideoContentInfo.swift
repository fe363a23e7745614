/// What the origin said about a resource: its length, type and validators.
public struct VideoContentInfo: Sendable, Hashable, Codable {
    /// The total length in bytes, when the origin told it.
    public var length: Int64?
    /// The MIME type, such as `video/mp4`.
    public var mimeType: String?
    /// The strong ETag, used with `If-Range` to detect a changed resource.
    public var etag: String?
    /// The Last-Modified date as the origin wrote it, the validator when there is no ETag.
    public var lastModified: String?

    /// Content info with the given fields.
    public init(length: Int64? = nil, mimeType: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.length = length
        self.mimeType = mimeType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The `If-Range` value: the ETag when it is strong, else Last-Modified (RFC 9110 §13.1.5
    /// forbids weak ETags there).
    var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// Whether `other` describes a different version of the resource than this one.
    func differs(from other: VideoContentInfo) -> Bool {
        if let etag, let otherTag = other.etag { return etag != otherTag }
        if let lastModified, let otherDate = other.lastModified, lastModified != otherDate { return true }
        if let length, let otherLength = other.length { return length != otherLength }
        return false
    }
}
