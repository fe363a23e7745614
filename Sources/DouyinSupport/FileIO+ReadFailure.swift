#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// Why ``FileIO/readFile(_:maximumSize:followingSymlinks:)`` gave no bytes.
    package enum ReadFailure: Error, Hashable, Sendable, CustomStringConvertible {
        /// A call failed: `open` (`ENOENT`, `EACCES`, `ELOOP` for a symlink not followed, …),
        /// `fstat` or `pread`.
        case system(SystemError)
        /// The path names something other than a regular file; nothing was read.
        case notARegularFile(FileKind)
        /// A regular file of `size` bytes, more than the caller's `limit`; nothing was read.
        case tooLarge(size: Int64, limit: Int)
        /// The file's length changed while it was read: `fstat` said `expected` bytes, the
        /// read gave `read` (one more than `expected` when it grew); no bytes are returned.
        case changedWhileRead(expected: Int64, read: Int64)

        /// What went wrong in words, without the path (the caller names it): "it is a
        /// directory", "it is a FIFO, not a regular file", "its length changed while it was
        /// read …", "it has 70000000 bytes, more than the limit of 67108864", or the
        /// failed call.
        package var description: String {
            switch self {
            case .system(let error): error.description
            // A directory needs no more words: nobody expects to read one as a file.
            case .notARegularFile(.directory): "it is a directory"
            case .notARegularFile(let kind): "it is \(kind), not a regular file"
            case .tooLarge(let size, let limit): "it has \(size) bytes, more than the limit of \(limit)"
            case .changedWhileRead(let expected, _): "its length changed while it was read (\(expected) bytes when opened)"
            }
        }
    }

    /// What a path names when it is not a regular file, as `fstat`'s mode says.
    package enum FileKind: Hashable, Sendable, CustomStringConvertible {
        case directory, fifo, characterDevice, blockDevice, socket, other

        /// The kind of file `mode` (an `st_mode`) describes, when it is not a regular file.
        package init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFDIR: self = .directory
            case S_IFIFO: self = .fifo
            case S_IFCHR: self = .characterDevice
            case S_IFBLK: self = .blockDevice
            case S_IFSOCK: self = .socket
            default: self = .other
            }
        }

        /// With its article: "a directory", "a FIFO", "a character device", ….
        package var description: String {
            switch self {
            case .directory: "a directory"
            case .fifo: "a FIFO"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            case .other: "a special file"
            }
        }
    }
}
