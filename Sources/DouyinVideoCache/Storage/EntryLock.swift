import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on one cache entry, shared with every other process using the directory:
/// a one-byte `fcntl` record lock in the directory's `lock` file, at an offset taken from the
/// entry's key. Whoever holds it may write the entry's data and index files and delete them;
/// a process that cannot get it leaves the entry's files alone.
///
/// `fcntl` locks belong to a process, not to a descriptor, and closing *any* descriptor of the
/// lock file drops all of them. So one process-wide table keeps one descriptor per lock file,
/// open for the life of the process, and counts the holders of each key inside the process:
/// two caches of one process on one directory share an entry's lock (as they share its files),
/// and the lock is given back to the system when the last holder lets go.
final class EntryLock: Sendable {
    /// Whether the lock allows writing (held exclusively) or only reading (held shared, in a
    /// directory this process cannot write).
    enum Mode: Sendable, Equatable {
        case exclusive
        case shared
        /// No lock file could be opened (a read-only directory without one): nobody can write
        /// here, so reading needs no lock.
        case unlocked
    }

    let mode: Mode
    /// Whether no other holder in this process had the lock when this one took it: start-up
    /// clean-up only touches entries it took fresh, never one another cache of the process uses.
    let isFresh: Bool
    private let slot: Slot?

    private init(mode: Mode, isFresh: Bool, slot: Slot?) {
        self.mode = mode
        self.isFresh = isFresh
        self.slot = slot
    }

    deinit {
        if let slot { Self.table.release(slot) }
    }

    /// Takes the lock of `key` in `directory` without waiting; `nil` when another process holds
    /// it (or, for `exclusive`, holds it shared). Falls back to a shared lock, or none, when the
    /// directory cannot be written.
    static func acquire(directory: String, key: String) -> EntryLock? {
        table.acquire(directory: directory, offset: offset(of: key))
    }

    /// The byte of the lock file standing for `key`: the first 60 bits of its hex digest (two
    /// keys sharing a byte only make each other look busy).
    static func offset(of key: String) -> Int64 {
        Int64(key.prefix(15), radix: 16) ?? Int64(truncatingIfNeeded: key.hashValue & 0x0FFF_FFFF_FFFF_FFFF)
    }

    /// The name of the lock file in a cache directory.
    static let fileName = "lock"

    // MARK: The process-wide table

    fileprivate struct Slot: Hashable, Sendable {
        let file: FileID
        let offset: Int64
    }

    fileprivate struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    private static let table = Table()

    private final class Table: Sendable {
        private struct OpenFile {
            let descriptor: Int32
            let writable: Bool
        }

        private struct Holding {
            var count: Int
            let mode: Mode
        }

        private struct Books {
            var files: [FileID: OpenFile] = [:]
            var holders: [Slot: Holding] = [:]
        }

        private let books = LockedBox(Books())

        func acquire(directory: String, offset: Int64) -> EntryLock? {
            books.withLock { books in
                guard let (id, file) = Self.openFile(in: directory, files: &books.files) else {
                    return EntryLock(mode: .unlocked, isFresh: true, slot: nil)
                }
                let slot = Slot(file: id, offset: offset)
                if var holding = books.holders[slot] {
                    holding.count += 1
                    books.holders[slot] = holding
                    return EntryLock(mode: holding.mode, isFresh: false, slot: slot)
                }
                let mode: Mode = file.writable ? .exclusive : .shared
                guard Self.setLock(file.descriptor, offset: offset, type: mode == .exclusive ? F_WRLCK : F_RDLCK) else { return nil }
                books.holders[slot] = Holding(count: 1, mode: mode)
                return EntryLock(mode: mode, isFresh: true, slot: slot)
            }
        }

        func release(_ slot: Slot) {
            books.withLock { books in
                guard var holding = books.holders[slot] else { return }
                holding.count -= 1
                if holding.count > 0 {
                    books.holders[slot] = holding
                    return
                }
                books.holders[slot] = nil
                if let file = books.files[slot.file] {
                    _ = Self.setLock(file.descriptor, offset: slot.offset, type: F_UNLCK)
                }
            }
        }

        /// The process's descriptor of the directory's lock file, opened (created if it can be)
        /// the first time. Found by device and inode, with `stat`, never by opening it again:
        /// closing a second descriptor would drop the process's locks. Called under the lock.
        private static func openFile(in directory: String, files: inout [FileID: OpenFile]) -> (FileID, OpenFile)? {
            let path = directory + "/" + EntryLock.fileName
            var info = stat()
            if lstat(path, &info) == 0 {
                let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                if let file = files[id] { return (id, file) }
            }
            var writable = true
            var descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor < 0 {
                writable = false
                descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard descriptor >= 0 else { return nil }
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                // A planted symlink is refused by O_NOFOLLOW; anything else but a file here too.
                close(descriptor)
                return nil
            }
            let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if let file = files[id] {
                // Opened by another path to the same directory: keep the first descriptor.
                // Closing this one would drop this process's locks on the file, so it stays open.
                return (id, file)
            }
            let file = OpenFile(descriptor: descriptor, writable: writable)
            files[id] = file
            return (id, file)
        }

        private static func setLock(_ descriptor: Int32, offset: Int64, type: Int32) -> Bool {
            var request = flock()
            request.l_type = Int16(type)
            request.l_whence = Int16(SEEK_SET)
            request.l_start = off_t(offset)
            request.l_len = 1
            while true {
                if fcntl(descriptor, F_SETLK, &request) == 0 { return true }
                if errno != EINTR { return false }
            }
        }
    }
}
