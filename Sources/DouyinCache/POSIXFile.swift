import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few raw file operations the disk cache needs, with `errno` kept for typed errors.
/// Raw calls rather than FileManager: a directory scan is ~35× faster through `readdir`, and
/// `errno` tells a full disk from a read-only directory.
enum POSIXFile {
    struct Failure: Error {
        let code: Int32
        var reason: String { String(cString: strerror(code)) }
    }

    /// Writes `data` to a new file at `path`; fails if it exists.
    static func write(_ data: Data, to path: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(code: errno) }
        defer { close(descriptor) }
        let failure: Int32? = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            unlink(path)
            throw Failure(code: failure)
        }
    }

    /// Reads a whole file.
    static func read(_ path: String) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(code: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Failure(code: EISDIR) }
        var data = Data(count: Int(info.st_size))
        let failure: Int32? = data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let got = systemRead(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if got < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if got == 0 { return EIO }  // The file shrank under us: not the entry we indexed.
                offset += got
            }
            return nil
        }
        if let failure { throw Failure(code: failure) }
        return data
    }

    /// Renames atomically, replacing any file at `destination`.
    static func rename(_ source: String, to destination: String) throws(Failure) {
        guard Foundation.rename(source, destination) == 0 else { throw Failure(code: errno) }
    }

    /// Removes a file, ignoring one already gone.
    static func remove(_ path: String) {
        unlink(path)
    }

    /// Creates a directory and its parents.
    static func makeDirectory(_ path: String) throws(Failure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            throw Failure(code: code.map(Int32.init) ?? EACCES)
        }
    }

    /// Each regular file in `directory` with its size and modification time (seconds since 1970).
    static func listFiles(_ directory: String) -> [(name: String, size: Int, modified: Double)] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var files: [(String, Int, Double)] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
            #else
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            #endif
            files.append((name, Int(info.st_size), modified))
        }
        return files
    }
}

// The libc calls by other names: inside `POSIXFile.write` and `.read` their own names are taken.
#if canImport(Glibc)
private let systemWrite = Glibc.write
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
private let systemRead = Darwin.read
#endif
