import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file an `--out` option names: created, or replaced when it is a regular file, and
/// nothing else (DESIGN.md, "The tool's verbs").
///
/// ``init(path:)`` only checks the destination, so a refused `--out` costs no download and a
/// download that fails before its first byte leaves nothing behind. The first ``write(_:)`` (or
/// ``commit()``) opens a temporary file beside the destination with `O_CREAT | O_EXCL |
/// O_NOFOLLOW`, so nothing planted at the destination while the bytes are written can redirect
/// them; ``commit()`` then puts that file in place:
/// - when nothing was at the destination, with `link(2)`, which fails rather than replace
///   anything planted there since the check (`renameat2`'s `RENAME_NOREPLACE` is not visible
///   to Swift on Linux; `link` is atomic the same way);
/// - when a regular file was there, with `rename(2)`, after checking again that it still is
///   one. `rename` replaces the directory entry itself: it never writes through a symlink,
///   so at worst a symlink swapped in during that last instant is replaced, its target untouched.
///   The new file gets the replaced one's permission bits (a 0600 file stays 0600).
///
/// A symlink (even to a regular file), a directory, a device, a FIFO or a socket at the
/// destination is refused with ``ToolError/failed(_:)`` before any byte is written, and is
/// left as it was. Bytes go through DouyinSupport's `FileIO` (its write-all loop and fsync).
package struct OutputFile: ~Copyable {
    /// The destination as the user gave it.
    package let path: String
    /// The permission bits of the regular file at `path` when it was checked (so commit
    /// replaces it and keeps them); `nil` when nothing was there.
    private let replacedMode: mode_t?
    private let temporary = Temporary()
    private var done = false
    /// The file layer every call goes through (a fault-injecting one in tests).
    private let files: FileIO

    /// The temporary file, opened at the first write; a class so `write(_:)` can open it
    /// without being `mutating` (callers write from a closure that only borrows the file).
    private final class Temporary {
        var path: String?
        var descriptor: Int32 = -1
        var offset: Int64 = 0
    }

    /// Checks the destination; no file is created yet. `files` is the C library's unless a
    /// test injects faults.
    package init(path: String, files: FileIO = FileIO()) throws(ToolError) {
        self.path = path
        self.files = files
        replacedMode = try Self.check(path)
    }

    deinit {
        if !done, let temporaryPath = temporary.path {
            files.close(temporary.descriptor)
            files.remove(temporaryPath)
        }
    }

    /// Appends `data` to the output, opening the temporary file first if this is the first write.
    package func write(_ data: Data) throws(ToolError) {
        let descriptor = try openedDescriptor()
        do {
            try files.write(data, to: descriptor, at: temporary.offset)
        } catch {
            throw failure(error.code)
        }
        temporary.offset += Int64(data.count)
    }

    /// Flushes the bytes and puts the file at the destination; until this returns, the
    /// destination is as it was.
    package consuming func commit() throws(ToolError) {
        let descriptor = try openedDescriptor()
        let temporaryPath = temporary.path!
        done = true
        defer { files.close(descriptor); files.remove(temporaryPath) }
        do {
            try files.sync(descriptor)
        } catch {
            throw failure(error.code)
        }
        if replacedMode == nil {
            if link(temporaryPath, path) == 0 { return }
            let code = errno
            // EEXIST: something appeared at the destination since the check; judge it afresh.
            // EPERM/ENOTSUP: a file system without hard links; fall back to the rename below.
            guard code == EEXIST || code == EPERM || code == ENOTSUP || code == EOPNOTSUPP else { throw failure(code) }
        }
        _ = try Self.check(path)
        do {
            try files.rename(temporaryPath, to: path)
        } catch {
            throw failure(error.code)
        }
    }

    /// Writes `data` as the whole output file at `path`.
    package static func write(_ data: Data, to path: String) throws(ToolError) {
        let file = try OutputFile(path: path)
        try file.write(data)
        try file.commit()
    }

    // MARK: - The temporary file

    private func openedDescriptor() throws(ToolError) -> Int32 {
        if temporary.path != nil { return temporary.descriptor }
        let (temporaryPath, descriptor) = try Self.openTemporary(beside: path, mode: replacedMode, files: files)
        temporary.path = temporaryPath
        temporary.descriptor = descriptor
        return descriptor
    }

    /// A new file in the destination's directory, named after it, that nothing else named,
    /// with the replaced file's permission bits (`mode`) or the usual 0666 less the umask.
    private static func openTemporary(beside path: String, mode: mode_t?, files: FileIO) throws(ToolError) -> (String, Int32) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        for attempt in 0...100 {
            let candidate = directory + temporaryName(for: name, attempt: attempt)
            let descriptor: Int32
            do {
                // Owner-only until the mode is set, so a 0600 file's replacement is never
                // readable by others, not even for an instant.
                descriptor = try files.open(candidate, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode == nil ? 0o666 : 0o600)
            } catch {
                // A leftover of an earlier run, or anything planted under that name: try the next.
                if error.code == EEXIST || error.code == ELOOP { continue }
                throw OutputFile.failure(path, error.code)
            }
            if let mode, fchmod(descriptor, mode) != 0 {
                let code = errno
                files.close(descriptor)
                files.remove(candidate)
                throw OutputFile.failure(path, code)
            }
            return (candidate, descriptor)
        }
        throw OutputFile.failure(path, EEXIST)
    }

    /// `.<name>.douyinkit-<pid>-<attempt>`, with `name` cut (at a character boundary) so the
    /// whole stays within NAME_MAX bytes: a 250-byte destination name must still get one.
    package static func temporaryName(for name: String, attempt: Int) -> String {
        let suffix = ".douyinkit-\(getpid())-\(attempt)"
        let budget = Int(NAME_MAX) - 1 - suffix.utf8.count
        var kept = Substring(name)
        while kept.utf8.count > budget { kept.removeLast() }
        return "." + kept + suffix
    }

    // MARK: - Checks and errors

    /// The permission bits of the regular file at `path`, or `nil` when nothing is there;
    /// anything else is refused. Set-user-ID, set-group-ID and sticky bits are not kept: a
    /// download must never become a set-ID program because the file it replaced was one.
    private static func check(_ path: String) throws(ToolError) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw failure(path, errno)
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return info.st_mode & 0o777
        case S_IFLNK: kind = "a symbolic link"
        case S_IFDIR: kind = "a directory"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw .failed("--out \(TerminalText.escaped(path)) is \(kind): --out only creates or replaces a regular file")
    }

    private func failure(_ code: Int32) -> ToolError { Self.failure(path, code) }

    private static func failure(_ path: String, _ code: Int32) -> ToolError {
        .failed("cannot write \(TerminalText.escaped(path)): \(String(cString: strerror(code)))")
    }
}
