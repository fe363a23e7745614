/// Why a video cache read failed.
public enum VideoCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The origin answered with a status that carries no usable body (e.g. 404, 500).
    case originStatus(Int, url: String)
    /// The origin's answer contradicts the request (a Content-Range for other bytes, a bad header).
    case invalidResponse(String)
    /// The body ended before the bytes its headers promised.
    case truncatedBody(expected: Int64, received: Int64)
    /// The connection failed (refused, dropped, timed out).
    case network(String)
    /// The cache directory cannot be used.
    case disk(String)
    /// The reader was closed or the read cancelled.
    case cancelled
    /// The resource at `url` changed (a new ETag, Last-Modified or length) after this read had
    /// handed out bytes of the old version; the old bytes are dropped, and a new read gets the
    /// new version whole.
    case resourceChanged(url: String)

    /// One line saying what went wrong.
    public var description: String {
        switch self {
        case .originStatus(let status, let url): "origin answered \(status) for \(url)"
        case .invalidResponse(let reason): "invalid origin response: \(reason)"
        case .truncatedBody(let expected, let received): "origin body ended after \(received) of \(expected) bytes"
        case .network(let reason): "network: \(reason)"
        case .disk(let reason): "cache directory: \(reason)"
        case .cancelled: "cancelled"
        case .resourceChanged(let url): "\(url) changed at the origin during the read; read it again for the new version"
        }
    }
}
