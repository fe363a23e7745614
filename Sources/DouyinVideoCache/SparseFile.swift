import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One resource's data file, written and read at offsets. Its holes mean nothing: only the
/// range index says which bytes are real.
final class SparseFile: Sendable {
    /// A failed system call, with its `errno`.
    struct Failure: Error {
        let code: Int32
        var reason: String { String(cString: strerror(code)) }
    }

    let path: String
    private let descriptor: Int32

    /// Opens (creating if needed) the file at `path` for reading and writing.
    init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(code: errno) }
        self.path = path
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
        if let failure { throw Failure(code: failure) }
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
        if let failure = result.failure { throw Failure(code: failure) }
        if result.got < count { data.removeSubrange(result.got...) }
        return data
    }

    /// Flushes written bytes to stable storage.
    func sync() throws(Failure) {
        guard fsync(descriptor) == 0 else { throw Failure(code: errno) }
    }

    /// Cuts the file to zero length (a changed resource's stale bytes).
    func truncate() throws(Failure) {
        guard ftruncate(descriptor, 0) == 0 else { throw Failure(code: errno) }
    }
}
