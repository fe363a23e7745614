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
/// the cache directory under an entry's name is refused, never read or written through.
final class SparseFile: Sendable {
    /// A failed system call, with its name and `errno`.
    struct Failure: Error, Equatable {
        /// The C call that failed, such as `open`.
        var call = "open"
        let code: Int32
        /// The call and the system's text for the code.
        var reason: String { "\(call): \(String(cString: strerror(code)))" }
    }

    let path: String
    /// Whether the file was opened for writing.
    let isWritable: Bool
    private let descriptor: Int32

    /// Opens the regular file at `path`: for reading and writing (creating it when `create`),
    /// or only for reading. Throws `ENOENT` when absent and not created, `ELOOP` for a symlink,
    /// and `EINVAL` ("not a regular file") for anything else that is not a regular file.
    init(path: String, create: Bool = true, writable: Bool = true) throws(Failure) {
        var flags = O_CLOEXEC | O_NOFOLLOW | (writable ? O_RDWR : O_RDONLY)
        if create && writable { flags |= O_CREAT }
        // O_NONBLOCK: opening a FIFO planted under our name must not hang; it is refused below.
        let descriptor = open(path, flags | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else { throw Failure(call: "open", code: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw Failure(call: "open (not a regular file)", code: EINVAL)
        }
        self.path = path
        self.isWritable = writable
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The file's current size in bytes.
    func size() -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws(Failure) {
        let failure: Int32? = data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let written = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
        if let failure { throw Failure(call: "pwrite", code: failure) }
    }

    /// Reads `count` bytes at `offset`; fewer only if the file ends first.
    func read(at offset: Int64, count: Int) throws(Failure) -> Data {
        var data = Data(count: count)
        let result: (got: Int, failure: Int32?) = data.withUnsafeMutableBytes { raw in
            var done = 0
            while done < count {
                let got = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if got < 0 {
                    if errno == EINTR { continue }
                    return (done, errno)
                }
                if got == 0 { break }
                done += got
            }
            return (done, nil)
        }
        if let failure = result.failure { throw Failure(call: "pread", code: failure) }
        if result.got < count { data.removeSubrange(result.got...) }
        return data
    }

    /// Flushes written bytes to stable storage.
    func sync() throws(Failure) {
        guard fsync(descriptor) == 0 else { throw Failure(call: "fsync", code: errno) }
    }

    /// Cuts the file to zero length (a changed resource's stale bytes).
    func truncate() throws(Failure) {
        guard ftruncate(descriptor, 0) == 0 else { throw Failure(call: "ftruncate", code: errno) }
    }
}
