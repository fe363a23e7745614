import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a video cache read failed.
public enum VideoCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The origin answered with a status that carries no usable body (e.g. 404, 500).
    case originStatus(Int, url: String)
    /// The origin's answer contradicts the request (a Content-Range for other bytes, a bad header).
    case invalidResponse(String)
    /// The body ended before the bytes its headers promised.
    case truncatedBody(expected: Int64, received: Int64)
    /// The transfer failed (refused, dropped, timed out): the session's `URLError`, kept whole
    /// (`code` says which; an origin's own non-URL error is `.unknown` with its text as the
    /// localized description; a body that stopped early with nothing is `.networkConnectionLost`).
    case network(URLError)
    /// Storing these bytes would take the cache past its size limit (in bytes) with nothing
    /// left to evict (every other resource is in use): the resource is read on uncached.
    case overSizeLimit(Int64)
    /// The cache directory is read-only (the entry's lock could be taken only shared): held
    /// bytes are served, the rest is fetched without being stored.
    case readOnlyDirectory
    /// The cache directory at `path` could not be made: `errno` says why (`EACCES`, `EROFS`,
    /// `ENOTDIR` when a file is in the way, `ENOSPC`).
    case cannotCreateDirectory(path: String, errno: Int32)
    /// A system call on one of the cache's files failed: `name` is the file in the cache
    /// directory, `call` the C function (`pwrite`, `pread`, `fsync`, `open` …) and `errno` the
    /// code it set (`ENOSPC`: the disk is full; `EIO`: the device failed; `EROFS`: read-only).
    case file(name: String, call: String, errno: Int32)
    /// The reader was closed or the read cancelled.
    case cancelled
    /// The resource at `url` changed (a new ETag, Last-Modified or length) after this read had
    /// handed out bytes of the old version; the old bytes are dropped, and a new read gets the
    /// new version whole.
    case resourceChanged(url: String)
    /// Another process holds this resource's entry in the cache directory (the entry is busy
    /// there): this one fetches what it reads without storing it (the other process stores it).
    case entryInUseElsewhere
    /// The URL's scheme is not `http` or `https` (an `ftp://` or `file://` URL from a feed, or
    /// a redirect to one): refused before any connection. Local files go through
    /// ``FileOrigin``, chosen explicitly.
    case unsupportedScheme(url: String)
    /// The local proxy (``VideoProxyServer``) could not listen on 127.0.0.1:`port`: `call` is
    /// the C function (`bind`, `listen`, `socket`, `pipe`) and `errno` what it set
    /// (`EADDRINUSE`: the port is taken).
    case listen(port: Int, call: String, errno: Int32)

    /// One line saying what went wrong.
    public var description: String {
        switch self {
        case .originStatus(let status, let url): "origin answered \(status) for \(url)"
        case .invalidResponse(let reason): "invalid origin response: \(reason)"
        case .truncatedBody(let expected, let received): "origin body ended after \(received) of \(expected) bytes"
        case .network(let error): "network: \(error.localizedDescription) (URLError \(error.code.rawValue))"
        case .overSizeLimit(let limit): "cache directory: over the size limit of \(limit) bytes, nothing idle to evict"
        case .readOnlyDirectory: "cache directory: read-only"
        case .cannotCreateDirectory(let path, let code): "cache directory: cannot create \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .file(let name, let call, let code): "cache file \(name): \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .cancelled: "cancelled"
        case .resourceChanged(let url): "\(url) changed at the origin during the read; read it again for the new version"
        case .entryInUseElsewhere: "the entry is in use by another process"
        case .unsupportedScheme(let url): "refused \(url): only http and https URLs are fetched from an origin"
        case .listen(let port, let call, let code): "cannot listen on 127.0.0.1:\(port): \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
