import DouyinSupport
import Foundation

extension FilePart {
    /// The largest file ``init(contentsOf:name:maximumSize:)`` reads by default: 20 MiB
    /// (20,971,520 bytes), above any picture the chat takes.
    public static let defaultMaximumFileSize = 20 << 20

    /// A part holding the file at `url`, named `name` (`file` by default), its file name the
    /// URL's last component and its media type sniffed from the bytes.
    ///
    /// The size is checked before a byte is read: a file larger than `maximumSize` (in bytes,
    /// ``defaultMaximumFileSize`` by default) is refused, and so is anything but a regular
    /// file (a FIFO, a device, a directory), so a 2 GiB file or `/dev/zero` never fills memory.
    ///
    /// - Throws: ``FileReadError``.
    public init(contentsOf url: URL, name: String = "file", maximumSize: Int = FilePart.defaultMaximumFileSize) throws(FileReadError) {
        let data = try BoundedFile.read(url.path, maximumSize: maximumSize)
        self.init(name: name, filename: url.lastPathComponent, data: data)
    }
}

/// Why a local file was not read (an upload's ``FilePart/init(contentsOf:name:maximumSize:)``).
///
/// Separate from ``APIError``: nothing was sent, and no endpoint is involved yet.
public enum FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file has `size` bytes, more than `limit`; it was not read.
    case tooLarge(path: String, size: Int64, limit: Int)
    /// The path names a directory, FIFO, device or socket, not a regular file.
    case notARegularFile(path: String)
    /// Opening or reading failed; `reason` is the system's (such as "No such file or directory").
    case unreadable(path: String, reason: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .tooLarge(let path, let size, let limit): "\(path) has \(size) bytes, more than the limit of \(limit)"
        case .notARegularFile(let path): "\(path) is not a regular file"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}

/// Reads a whole regular file only after its size is checked against a maximum, through the
/// package's one bounded reader (``FileIO/readFile(_:maximumSize:followingSymlinks:)``: opened
/// with `O_NONBLOCK`, so a FIFO is refused instead of waited on), in this module's errors.
enum BoundedFile {
    static func read(_ path: String, maximumSize: Int) throws(FileReadError) -> Data {
        do {
            return try FileIO().readFile(path, maximumSize: maximumSize, followingSymlinks: true)
        } catch {
            switch error {
            case .notARegularFile: throw .notARegularFile(path: path)
            case .tooLarge(let size, let limit): throw .tooLarge(path: path, size: size, limit: limit)
            case .system(let failure): throw .unreadable(path: path, reason: failure.reason)
            case .changedWhileRead: throw .unreadable(path: path, reason: error.description)
            }
        }
    }
}
