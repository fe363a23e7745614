#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLError lives here on Linux
#endif

/// What went wrong in a cache, and where.
public enum CacheError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cache directory cannot be created or written (permissions, a file in the way, an
    /// I/O error); `errno` is the failed call's (`EACCES`, `EIO`, `ENOTDIR` …).
    case unwritable(path: String, errno: Int32)
    /// The disk (or the user's quota) has no room for the entry: `errno` is `ENOSPC` or `EDQUOT`.
    case diskFull(path: String, errno: Int32)
    /// A disk key that is not md5 hex (32 lowercase hex digits, as `MD5.hex` makes).
    case invalidKey(String)
    /// The origin answered with a status other than `200` or `203` (a `206` or `204` too: the
    /// request never asks for part of a resource); nothing was cached.
    case httpStatus(Int, url: String)
    /// The body is longer than the downloader's ``Downloader/Configuration/maximumBodySize``
    /// (`limit`, in bytes), by its `Content-Length` or as it arrived; nothing was cached.
    case bodyTooLarge(url: String, limit: Int)
    /// The transfer failed (connection refused, dropped mid-way, timed out, a `file://` URL
    /// that cannot be read); the session's own error is kept. Nothing was cached.
    case transport(url: String, URLError)
    /// The body ended before its `Content-Length` (`received` of `expected` bytes): a dropped
    /// connection, never a whole resource. Nothing was cached.
    case truncated(url: String, received: Int64, expected: Int64)
    /// A URL the downloader cannot fetch (no http, https or file scheme).
    case unsupportedURL(String)
    /// The download was cancelled before it finished.
    case cancelled(url: String)

    /// What happened, in one line a person can act on.
    public var description: String {
        switch self {
        case .unwritable(let path, let code): "cannot write the cache directory \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .diskFull(let path, _): "no space left for the cache at \(path)"
        case .invalidKey(let key): "\"\(key)\" is not a valid disk cache key (use MD5.hex of the URL)"
        case .httpStatus(let status, let url): "HTTP \(status) from \(url)"
        case .bodyTooLarge(let url, let limit): "\(url) is larger than the \(limit)-byte limit (Downloader.Configuration.maximumBodySize)"
        case .transport(let url, let error): "download of \(url) failed: \(error.localizedDescription) (URLError \(error.code.rawValue))"
        case .truncated(let url, let received, let expected): "download of \(url) failed: got \(received) of \(expected) bytes"
        case .unsupportedURL(let url): "cannot download \(url): only http, https and file URLs"
        case .cancelled(let url): "download of \(url) was cancelled"
        }
    }
}
