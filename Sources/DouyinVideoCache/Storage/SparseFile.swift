import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One resource's data file, written and read at offsets. Its holes mean nothing: only the
/// range index says which bytes are real.
///
/// Opened with `O_NOFOLLOW` and checked to be a regular file: a symlink or device planted in
/// the cache directory under an entry's name is refused, never read or written through. All
/// I/O goes through DouyinSupport's ``FileIO`` (EINTR retried, short transfers continued, and
/// the seam through which tests inject a full disk or an I/O error).
final class SparseFile: Sendable {
    let path: String
    /// The file's name in the cache directory, for error messages.
    var name: String { String(path.split(separator: "/").last ?? Substring(path)) }
    /// Whether the file was opened for writing.
    let isWritable: Bool
    /// The open file; internal for `sendfile(2)` from it (``ResourceEntry/sendVerified``).
    let descriptor: Int32
    private let files: FileIO

    /// Opens the regular file at `path`: for reading and writing (creating it when `create`),
    /// or only for reading. Throws `ENOENT` when absent and not created, `ELOOP` for a symlink,
    /// and `EINVAL` ("not a regular file") for anything else that is not a regular file.
    init(path: String, create: Bool = true, writable: Bool = true, files: FileIO) throws(SystemError) {
        var flags = O_NOFOLLOW | (writable ? O_RDWR : O_RDONLY)
        if create && writable { flags |= O_CREAT }
        // O_NONBLOCK: opening a FIFO planted under our name must not hang; it is refused below.
        let descriptor = try files.open(path, flags: flags | O_NONBLOCK)
        guard let info = try? files.status(descriptor), (info.st_mode & S_IFMT) == S_IFREG else {
            files.close(descriptor)
            throw SystemError(call: "open (not a regular file)", code: EINVAL)
        }
        self.path = path
        self.isWritable = writable
        self.descriptor = descriptor
        self.files = files
    }

    deinit {
        files.close(descriptor)
    }

    /// The file's current size in bytes.
    func size() -> Int64 {
        (try? files.status(descriptor)).map { Int64($0.st_size) } ?? 0
    }

    /// What `fstat` says of the open file now: which file it is, its size and its times.
    func identity() throws(SystemError) -> FileIdentity {
        FileIdentity(try files.status(descriptor))
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws(SystemError) {
        try files.write(data, to: descriptor, at: offset)
    }

    /// Reads `count` bytes at `offset`; fewer only if the file ends first.
    func read(at offset: Int64, count: Int) throws(SystemError) -> Data {
        try files.read(count, from: descriptor, at: offset)
    }

    /// Flushes written bytes to stable storage.
    func sync() throws(SystemError) {
        try files.sync(descriptor)
    }

    /// Cuts the file to zero length (a changed resource's stale bytes).
    func truncate() throws(SystemError) {
        try files.truncate(descriptor, to: 0)
    }
}
