import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLError lives here on Linux
#endif

/// The `file://` reads of a ``Downloader`` whose configuration allows them.
///
/// Opened with `O_NONBLOCK` and checked with `fstat` before a byte is read: a FIFO with no
/// writer opens at once instead of blocking (and is refused), as are devices, sockets and
/// directories; a regular file is read up to the size `fstat` gave, so one that grows while it
/// is read cannot grow the buffer. Symlinks are followed: these are URLs the program itself
/// made, unlike the names inside a cache directory.
enum LocalFile {
    /// The bytes of the regular file `url` names, or why not.
    static func read(_ url: URL, limit: Int?, files: FileIO = FileIO()) -> Result<Data, CacheError> {
        let name = url.absoluteString
        let descriptor: Int32
        do {
            descriptor = try files.open(url.path, flags: O_RDONLY | O_NONBLOCK)
        } catch {
            return .failure(.transport(url: name, URLError(openErrno: error.code)))
        }
        defer { files.close(descriptor) }
        do throws(SystemError) {
            let info = try files.status(descriptor)
            guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notARegularFile(url: name)) }
            let size = Int64(info.st_size)
            // Compared as Int64: an Int is 32 bits on some platforms.
            if let limit, size > Int64(limit) { return .failure(.bodyTooLarge(url: name, limit: limit)) }
            guard size <= Int64(Int.max) else { return .failure(.bodyTooLarge(url: name, limit: Int.max)) }
            let data = try files.read(Int(size), from: descriptor, at: 0)
            // Cut while read: never a whole file.
            guard Int64(data.count) == size else { return .failure(.truncated(url: name, received: Int64(data.count), expected: size)) }
            return .success(data)
        } catch {
            return .failure(.transport(url: name, URLError(.cannotOpenFile)))
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
