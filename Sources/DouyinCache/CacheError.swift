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
    /// An entry of `size` bytes is over the disk tier's per-entry `limit` (bytes,
    /// ``DiskCache/Configuration/largestEntry``); it was not stored.
    case entryTooLarge(key: String, size: Int64, limit: Int64)
    /// The origin answered with a status other than `200` or `203` (a `206` or `204` too: the
    /// request never asks for part of a resource); nothing was cached.
    case httpStatus(Int, url: String)
    /// The body is longer than the downloader's ``Downloader/Configuration/maximumBodySize``
    /// (`limit`, in bytes), by its `Content-Length` or as it arrived; nothing was cached.
    case bodyTooLarge(url: String, limit: Int)
    /// The transfer failed (connection refused, dropped mid-way, timed out, a `file://` URL
    /// that cannot be opened or read); the session's own error is kept. Nothing was cached.
    case transport(url: String, URLError)
    /// A `file://` URL (allowed by ``Downloader/Configuration/allowsFileURLs``) names something
    /// other than a regular file: a FIFO, a device, a socket or a directory. It is refused from
    /// its `fstat` without a byte read, so a FIFO with no writer cannot stall the download.
    case notARegularFile(url: String)
    /// The body ended before its `Content-Length` (`received` of `expected` bytes): a dropped
    /// connection, never a whole resource. Nothing was cached.
    case truncated(url: String, received: Int64, expected: Int64)
    /// The answer's framing is one RFC 9112 makes an error (two different `Content-Length`s,
    /// one beside `Transfer-Encoding`, a length that is not a plain number): `reason` names the
    /// header and its value. Refused from the head; nothing was cached. A redirect to a scheme
    /// other than http(s) is ``unsupportedScheme(url:scheme:)``.
    case invalidResponse(url: String, reason: String)
    /// A URL whose scheme the downloader does not fetch: anything but `http` and `https`, and
    /// `file` unless ``Downloader/Configuration/allowsFileURLs`` is on. `scheme` is as written
    /// in the URL (empty when it has none). Refused before any connection or file is opened.
    case unsupportedScheme(url: String, scheme: String)
    /// A download whose length could not be checked (see ``DownloadedData/isLengthChecked``):
    /// handed to the callers waiting for it but stored in neither tier, so
    /// ``TwoTierCache/prefetch(_:priority:)`` cannot say it is held.
    case notStored(url: String)
    /// The download was cancelled before it finished.
    case cancelled(url: String)
    /// A component's configuration has a field outside its allowed range: `field` is the
    /// field's Swift name, `value` the value given and `allowed` the range, as text. Thrown by
    /// the component's initializer; nothing is clamped.
    case configurationOutOfRange(field: String, value: String, allowed: String)

    /// What happened, in one line a person can act on.
    public var description: String {
        switch self {
        case .unwritable(let path, let code): "cannot write the cache directory \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .diskFull(let path, _): "no space left for the cache at \(path)"
        case .invalidKey(let key): "\"\(key)\" is not a valid disk cache key (use MD5.hex of the URL)"
        case .entryTooLarge(let key, let size, let limit): "entry \(key) of \(size) bytes is over the disk cache's \(limit)-byte entry limit"
        case .httpStatus(let status, let url): "HTTP \(status) from \(url)"
        case .bodyTooLarge(let url, let limit): "\(url) is larger than the \(limit)-byte limit (Downloader.Configuration.maximumBodySize)"
        case .transport(let url, let error): "download of \(url) failed: \(error.localizedDescription) (URLError \(error.code.rawValue))"
        case .notARegularFile(let url): "cannot read \(url): not a regular file"
        case .truncated(let url, let received, let expected): "download of \(url) failed: got \(received) of \(expected) bytes"
        case .invalidResponse(let url, let reason): "download of \(url) refused: \(reason)"
        case .unsupportedScheme(let url, let scheme):
            "refused \(url): scheme \"\(scheme)\" is not fetched (http and https only; file only when Downloader.Configuration.allowsFileURLs is on)"
        case .notStored(let url): "\(url) was downloaded but not stored: its length could not be checked (body ended by closing the connection)"
        case .cancelled(let url): "download of \(url) was cancelled"
        case .configurationOutOfRange(let field, let value, let allowed): "\(field) \(value) is outside \(allowed)"
        }
    }
}
