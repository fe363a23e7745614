import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLError lives here on Linux
#endif

/// The `file://` reads of a ``Downloader`` whose configuration allows them, through the
/// package's one bounded reader (``FileIO/readFile(_:maximumSize:followingSymlinks:)``).
///
/// Opened with `O_NONBLOCK` and checked with `fstat` before a byte is read: a FIFO with no
/// writer opens at once instead of blocking (and is refused), as are devices, sockets and
/// directories; a regular file over the body limit is refused by its size, and one whose length
/// changes while it is read is never a whole file. Symlinks are followed: these are URLs the
/// program itself made, unlike the names inside a cache directory.
enum LocalFile {
    /// The bytes of the regular file `url` names, or why not.
    static func read(_ url: URL, limit: Int?, files: FileIO = FileIO()) -> Result<Data, CacheError> {
        let name = url.absoluteString
        do {
            return .success(try files.readFile(url.path, maximumSize: limit ?? .max, followingSymlinks: true))
        } catch {
            switch error {
            case .notARegularFile: return .failure(.notARegularFile(url: name))
            case .tooLarge(_, let limit): return .failure(.bodyTooLarge(url: name, limit: limit))
            // Cut or grown while read: never a whole file.
            case .changedWhileRead(let expected, let read): return .failure(.truncated(url: name, received: read, expected: expected))
            case .system(let failure) where failure.call == "open": return .failure(.transport(url: name, URLError(openErrno: failure.code)))
            case .system: return .failure(.transport(url: name, URLError(.cannotOpenFile)))
            }
        }
    }
}

extension URLError {
    /// An `open(2)` failure as the `URLError` code a session reports for it.
    init(openErrno code: Int32) {
        switch code {
        case ENOENT, ENOTDIR: self.init(.fileDoesNotExist)
        case EACCES, EPERM: self.init(.noPermissionsToReadFile)
        default: self.init(.cannotOpenFile)
        }
    }
}
