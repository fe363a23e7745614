import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file an `--out` option names: created, or replaced when it is a regular file, and
/// nothing else (DESIGN.md, "The tool's verbs").
///
/// The bytes go to a temporary file beside the destination, opened with `O_CREAT | O_EXCL |
/// O_NOFOLLOW`, so nothing planted at the destination while they are written can redirect
/// them; ``commit()`` then puts that file in place:
/// - when nothing was at the destination, with `link(2)`, which fails rather than replace
///   anything planted there since the check (`renameat2`'s `RENAME_NOREPLACE` is not visible
///   to Swift on Linux; `link` is atomic the same way);
/// - when a regular file was there, with `rename(2)`, after checking again that it still is
///   one. `rename` replaces the directory entry itself: it never writes through a symlink,
///   so at worst a symlink swapped in during that last instant is replaced, its target untouched.
///
/// A symlink (even to a regular file), a directory, a device, a FIFO or a socket at the
/// destination is refused with ``ToolError/failed(_:)`` before any byte is written, and is
/// left as it was.
struct OutputFile: ~Copyable {
    /// The destination as the user gave it.
    let path: String
    private let temporaryPath: String
    private let descriptor: Int32
    /// Whether a regular file was at `path` when it was checked (so commit replaces it).
    private let replaces: Bool
    private var done = false

    /// Checks the destination and opens a temporary file beside it.
    init(path: String) throws(ToolError) {
        let replaces = try Self.check(path)
        let (temporaryPath, descriptor) = try Self.openTemporary(beside: path)
        self.path = path
        self.replaces = replaces
        self.temporaryPath = temporaryPath
        self.descriptor = descriptor
    }

    /// A new file in the destination's directory, named after it, that nothing else named.
    private static func openTemporary(beside path: String) throws(ToolError) -> (String, Int32) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var attempt = 0
        while true {
            let candidate = "\(directory).\(name).douyinkit-\(getpid())-\(attempt)"
            // 0o666 less the umask, as any tool's newly created output file.
            let opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if opened >= 0 { return (candidate, opened) }
            let code = errno
            if code == EINTR { continue }
            // A leftover of an earlier run, or anything planted under that name: try the next.
            if code == EEXIST || code == ELOOP, attempt < 100 { attempt += 1; continue }
            throw .failed("cannot write \(path): \(reason(code))")
        }
    }

    deinit {
        if !done {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends `data` to the output.
    func write(_ data: Data) throws(ToolError) {
        let failure: Int32? = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return ENOSPC }
                offset += written
            }
            return nil
        }
        if let failure { throw .failed("cannot write \(path): \(Self.reason(failure))") }
    }

    /// Flushes the bytes and puts the file at the destination; until this returns, the
    /// destination is as it was.
    consuming func commit() throws(ToolError) {
        done = true
        defer { close(descriptor); unlink(temporaryPath) }
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw .failed("cannot write \(path): \(Self.reason(errno))") }
        }
        if !replaces {
            if link(temporaryPath, path) == 0 { return }
            let code = errno
            // EEXIST: something appeared at the destination since the check; judge it afresh.
            // EPERM/ENOTSUP: a file system without hard links; fall back to the rename below.
            guard code == EEXIST || code == EPERM || code == ENOTSUP || code == EOPNOTSUPP else {
                throw .failed("cannot write \(path): \(Self.reason(code))")
            }
        }
        _ = try Self.check(path)
        guard rename(temporaryPath, path) == 0 else {
            throw .failed("cannot write \(path): \(Self.reason(errno))")
        }
    }

    /// Writes `data` as the whole output file at `path`.
    static func write(_ data: Data, to path: String) throws(ToolError) {
        let file = try OutputFile(path: path)
        try file.write(data)
        try file.commit()
    }

    /// Whether a regular file is at `path` (true) or nothing (false); anything else is refused.
    private static func check(_ path: String) throws(ToolError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .failed("cannot write \(path): \(reason(errno))")
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return true
        case S_IFLNK: kind = "a symbolic link"
        case S_IFDIR: kind = "a directory"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw .failed("--out \(path) is \(kind): --out only creates or replaces a regular file")
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

// `write` by another name: inside `OutputFile.write` its own name is taken.
#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
