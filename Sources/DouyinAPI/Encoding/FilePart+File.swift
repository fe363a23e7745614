import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// Reads a whole regular file only after its size is checked against a maximum.
enum BoundedFile {
    static func read(_ path: String, maximumSize: Int) throws(FileReadError) -> Data {
        let files = FileIO()
        do {
            // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
            let descriptor = try files.open(path, flags: O_RDONLY | O_NONBLOCK)
            defer { files.close(descriptor) }
            let info = try files.status(descriptor)
            guard info.st_mode & S_IFMT == S_IFREG else { throw FileReadError.notARegularFile(path: path) }
            let size = Int64(info.st_size)
            guard size >= 0, size <= Int64(maximumSize) else { throw FileReadError.tooLarge(path: path, size: size, limit: maximumSize) }
            // One byte past the size: a file that grew after the check is caught, not read on.
            let data = try files.read(Int(size) + 1, from: descriptor, at: 0)
            guard data.count <= maximumSize else { throw FileReadError.tooLarge(path: path, size: Int64(data.count), limit: maximumSize) }
            return data
        } catch let error as FileReadError {
            throw error
        } catch let error as SystemError {
            throw .unreadable(path: path, reason: error.reason)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }
}
