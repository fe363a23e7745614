import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one POSIX file layer: whole-file reads and writes, positioned I/O on a
/// descriptor, renames and directory scans, every call through a ``Syscalls`` seam.
///
/// Raw calls rather than FileManager: a directory scan is ~35× faster through `readdir`, and
/// `errno` tells a full disk from a read-only directory. Errors are ``SystemError`` naming the
/// C call. `EINTR` is retried here, in one place; short transfers are continued here too.
/// Paths are opened with `O_NOFOLLOW` where the caches own the file, so a symlink planted in a
/// cache directory is refused (`ELOOP`) instead of followed.
package struct FileIO: Sendable {
    /// The calls this layer makes; ``Syscalls/system`` unless a test injects faults.
    package let syscalls: Syscalls

    /// A file layer over `syscalls` (the C library's by default).
    package init(syscalls: Syscalls = .system) {
        self.syscalls = syscalls
    }

    // MARK: Descriptors

    /// Opens `path`, retrying an interrupted call. `flags` are `open(2)`'s; `O_CLOEXEC` is added.
    package func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> Int32 {
        while true {
            let descriptor = syscalls.open(path, flags | O_CLOEXEC, mode)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw SystemError(call: "open", code: errno) }
        }
    }

    /// Closes a descriptor this layer opened.
    package func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// Writes all of `bytes` at `offset`, continuing short writes.
    package func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = syscalls.pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(call: "pwrite", code: errno)
            }
            // A zero-byte write of a non-empty buffer would loop forever; the disk is full.
            if written == 0 { throw SystemError(call: "pwrite", code: ENOSPC) }
            done += written
        }
    }

    /// Writes all of `data` at `offset`.
    package func write(_ data: Data, to descriptor: Int32, at offset: Int64) throws(SystemError) {
        let result: SystemError? = data.withUnsafeBytes { raw in
            do throws(SystemError) {
                try write(raw, to: descriptor, at: offset)
                return nil
            } catch {
                return error
            }
        }
        if let result { throw result }
    }

    /// Reads up to `count` bytes at `offset`; fewer only when the file ends first.
    package func read(_ count: Int, from descriptor: Int32, at offset: Int64) throws(SystemError) -> Data {
        guard count > 0 else { return Data() }
        // Room the kernel fills, not zeroed first (`Data(count:)` would write every byte once
        // more); a short read hands back only what was read.
        guard let room = malloc(count) else { throw SystemError(call: "malloc", code: ENOMEM) }
        var done = 0
        while done < count {
            let got = syscalls.pread(descriptor, room + done, count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                let failure = SystemError(call: "pread", code: errno)
                free(room)
                throw failure
            }
            if got == 0 { break }
            done += got
        }
        if done < count / 2 {
            // Mostly unused room is not kept alive behind a short answer.
            defer { free(room) }
            return Data(bytes: room, count: done)
        }
        return Data(bytesNoCopy: room, count: done, deallocator: .free)
    }

    /// Flushes a descriptor's written bytes to stable storage.
    package func sync(_ descriptor: Int32) throws(SystemError) {
        while syscalls.fsync(descriptor) != 0 {
            if errno != EINTR { throw SystemError(call: "fsync", code: errno) }
        }
    }

    /// Cuts or extends a descriptor's file to `length` bytes.
    package func truncate(_ descriptor: Int32, to length: Int64) throws(SystemError) {
        while syscalls.ftruncate(descriptor, off_t(length)) != 0 {
            if errno != EINTR { throw SystemError(call: "ftruncate", code: errno) }
        }
    }

    /// The status of an open descriptor.
    package func status(_ descriptor: Int32) throws(SystemError) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError(call: "fstat", code: errno) }
        return info
    }

    // MARK: Whole files

    /// Writes `data` to a new file at `path`; fails if anything (a symlink included) is there.
    /// A failed write removes the partial file.
    package func writeNewFile(_ data: Data, to path: String) throws(SystemError) {
        let descriptor = try open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
        defer { close(descriptor) }
        do {
            try write(data, to: descriptor, at: 0)
        } catch {
            remove(path)
            throw error
        }
    }

    /// The bytes of the regular file at `path`, read whole only after `fstat` said what it is
    /// and how big: the one reader of a file named by a path, in the library and in the tool.
    ///
    /// Opened with `O_NONBLOCK`, so a FIFO with no writer opens at once (and is refused) instead
    /// of blocking; anything but a regular file (a directory, FIFO, device or socket) is refused
    /// before a byte is read, so `/dev/zero` never fills memory; a file over `maximumSize` bytes
    /// is refused before it is read; a file whose length changed while it was read is refused
    /// too (one byte past the size is asked for, so growth is seen). `followingSymlinks: false`
    /// (files a cache owns) adds `O_NOFOLLOW`: a planted symlink is `ELOOP`, never followed;
    /// `true` suits a path a person named.
    package func readFile(_ path: String, maximumSize: Int = .max, followingSymlinks: Bool = false) throws(ReadFailure) -> Data {
        let descriptor: Int32
        do {
            descriptor = try open(path, flags: O_RDONLY | O_NONBLOCK | (followingSymlinks ? 0 : O_NOFOLLOW))
        } catch {
            throw .system(error)
        }
        defer { close(descriptor) }
        let info: stat
        do { info = try status(descriptor) } catch { throw .system(error) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(FileKind(mode: info.st_mode)) }
        guard info.st_size >= 0, Int64(info.st_size) <= Int64(maximumSize) else { throw .tooLarge(size: Int64(info.st_size), limit: maximumSize) }
        let size = Int(info.st_size)
        let data: Data
        do { data = try read(size == .max ? size : size + 1, from: descriptor, at: 0) } catch { throw .system(error) }
        // Shrank or grew under us: not the file fstat described.
        guard data.count == size else { throw .changedWhileRead(expected: Int64(size), read: Int64(data.count)) }
        return data
    }

    /// Renames atomically, replacing any file at `destination`.
    package func rename(_ source: String, to destination: String) throws(SystemError) {
        guard syscalls.rename(source, destination) == 0 else { throw SystemError(call: "rename", code: errno) }
    }

    /// Removes a file (or a symlink itself, never its target), ignoring one already gone.
    package func remove(_ path: String) {
        _ = syscalls.unlink(path)
    }

    /// Creates a directory and its parents (mode 0755); one already there is fine. Throws the
    /// `mkdir` that failed with its errno (`ENOTDIR` when a file is in the way, `EACCES`, `EROFS`).
    package func makeDirectory(_ path: String) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw SystemError(call: "mkdir", code: errno) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError(call: "stat", code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SystemError(call: "mkdir", code: ENOTDIR) }
    }

    /// The name of every entry directly in `directory`, whatever its type (symlinks, FIFOs and
    /// directories included, so a cleaner can see what was planted); empty when it cannot be read.
    package func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = Self.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
    }

    /// One regular file found by ``listFiles(in:)``.
    package struct ListedFile: Sendable, Hashable {
        /// The file's name inside the directory.
        package let name: String
        /// Its size in bytes.
        package let size: Int64
        /// Its modification time, seconds since 1970.
        package let modified: Double
    }

    /// Each regular file directly in `directory` (symlinks, directories and devices skipped,
    /// since `lstat` is used); empty when the directory cannot be read.
    package func listFiles(in directory: String) -> [ListedFile] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var files: [ListedFile] = []
        while let entry = readdir(stream) {
            let name = Self.name(of: entry)
            if name == "." || name == ".." { continue }
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
            #else
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            #endif
            files.append(ListedFile(name: name, size: Int64(info.st_size), modified: modified))
        }
        return files
    }
}

#if canImport(Glibc)
private let systemClose = Glibc.close
#elseif canImport(Darwin)
private let systemClose = Darwin.close
#endif
