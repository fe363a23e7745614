import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `fstat(2)` says about a data file that changes whenever its bytes may have: which file
/// (device and inode), its size, and its modification and change times to the nanosecond. The
/// check nginx's open-file cache makes before it trusts what it knows about a file.
///
/// Equal identities mean "unchanged" only when the change time was *settled* when the bytes were
/// checked: a filesystem stamps times from a coarse clock (a kernel tick; a second or two on
/// some filesystems), so a write in the same tick as the check can leave every field as it was.
/// Git's index has the same hole and the same rule ("racy" entries): an identity whose change
/// time is within ``racyWindow`` of the clock when it was taken proves nothing, and the bytes
/// are checked again at every read until a later check finds it settled.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Seconds and nanoseconds since 1970, as nanoseconds.
    var modified: Int64
    var changed: Int64

    /// How close to the clock a change time must not be for the identity to prove anything:
    /// 2 s, the coarsest timestamp granularity of the filesystems a cache may live on (FAT's
    /// modification time; ext4 without fine-grained stamps moves by a kernel tick, ≤ 10 ms).
    static let racyWindow: Int64 = 2_000_000_000

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
        #else
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        #endif
    }

    init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
    }

    /// Whether a write after `now` (nanoseconds since 1970) is sure to change this identity:
    /// its change time, which every write, truncate or `utimes` sets from the clock (unlike the
    /// modification time, which `touch -d` can set to anything), is older than ``racyWindow``.
    func isSettled(at now: Int64) -> Bool {
        changed < now - Self.racyWindow
    }
}
