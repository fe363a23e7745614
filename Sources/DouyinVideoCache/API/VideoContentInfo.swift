/// What the origin said about a resource: its length, type and validators.
public struct VideoContentInfo: Sendable, Hashable, Codable {
    /// The total length in bytes, when the origin told it.
    public var length: Int64?
    /// The MIME type, such as `video/mp4`.
    public var mimeType: String?
    /// The ETag as the origin wrote it (a weak one starts with `W/`); `nil` when it sent none.
    public var etag: String?
    /// The Last-Modified date as the origin wrote it; `nil` when it sent none.
    public var lastModified: String?

    /// Content info with the given fields.
    public init(length: Int64? = nil, mimeType: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.length = length
        self.mimeType = mimeType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether the ETag is strong (not `W/`-prefixed); `false` when there is none.
    package var hasStrongETag: Bool {
        guard let etag else { return false }
        return !etag.hasPrefix("W/")
    }

    /// The `If-Range` value, per RFC 9110 §13.1.5: a strong ETag; or the Last-Modified date,
    /// but only when there is no entity tag at all (never a weak tag, never a date beside a
    /// tag); `nil` when neither is usable, and then no `If-Range` is sent: a changed resource
    /// is found by comparing the answer's identity (``differs(from:)``) instead.
    package var ifRangeValidator: String? {
        if hasStrongETag { return etag }
        if etag == nil { return lastModified }
        return nil
    }

    /// Whether `other` describes a different version of the resource than this one. What one
    /// of the two leaves out is not a difference; what both say must agree:
    /// - a different total length is a new version, whatever the validators say (an origin
    ///   that keeps its strong ETag across an edit must not get two files spliced);
    /// - different ETags are a new version;
    /// - the same weak ETag only says "equivalent", not "these bytes": a changed
    ///   Last-Modified beside it is a new version;
    /// - without ETags, a changed Last-Modified is a new version.
    package func differs(from other: VideoContentInfo) -> Bool {
        if let length, let otherLength = other.length, length != otherLength { return true }
        let datesDiffer = lastModified != nil && other.lastModified != nil && lastModified != other.lastModified
        if let etag, let otherTag = other.etag {
            if etag != otherTag { return true }
            return !hasStrongETag && datesDiffer
        }
        return datesDiffer
    }
}
