#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C calls the file layer makes, as replaceable values: the seam through which tests inject
/// the faults no real disk produces on demand (a full disk, an I/O error, a short write, an
/// interrupted call).
///
/// Each closure behaves as its C function: it returns -1 (or a negative count) and sets `errno`
/// on failure. ``system`` calls the C library; ``injecting(_:)`` wraps a set of calls with a
/// ``FaultInjector``. Instances are values handed to the component that does I/O, so a test's
/// faults never reach another test running in parallel.
package struct Syscalls: Sendable {
    /// `open(path, flags, mode)`.
    package var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    /// `read(fd, buffer, count)`.
    package var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
    /// `write(fd, buffer, count)`.
    package var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int
    /// `pread(fd, buffer, count, offset)`.
    package var pread: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int
    /// `pwrite(fd, buffer, count, offset)`.
    package var pwrite: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int
    /// `fsync(fd)`.
    package var fsync: @Sendable (_ fd: Int32) -> Int32
    /// `ftruncate(fd, length)`.
    package var ftruncate: @Sendable (_ fd: Int32, _ length: off_t) -> Int32
    /// `rename(from, to)`.
    package var rename: @Sendable (_ from: String, _ to: String) -> Int32
    /// `unlink(path)`.
    package var unlink: @Sendable (_ path: String) -> Int32

    /// The C library's own calls.
    package static let system = Syscalls(
        open: { path, flags, mode in systemOpen(path, flags, mode) },
        read: { fd, buffer, count in systemRead(fd, buffer, count) },
        write: { fd, buffer, count in systemWrite(fd, buffer, count) },
        pread: { fd, buffer, count, offset in systemPread(fd, buffer, count, offset) },
        pwrite: { fd, buffer, count, offset in systemPwrite(fd, buffer, count, offset) },
        fsync: { fd in systemFsync(fd) },
        ftruncate: { fd, length in systemFtruncate(fd, length) },
        rename: { from, to in systemRename(from, to) },
        unlink: { path in systemUnlink(path) }
    )

    /// These calls with `injector`'s faults applied before each one reaches them.
    package func injecting(_ injector: FaultInjector) -> Syscalls {
        let base = self
        return Syscalls(
            open: { path, flags, mode in
                injector.fail(.open) ?? base.open(path, flags, mode)
            },
            read: { fd, buffer, count in
                injector.fail(.read).map(Int.init) ?? base.read(fd, buffer, injector.limit(count))
            },
            write: { fd, buffer, count in
                injector.fail(.write).map(Int.init) ?? base.write(fd, buffer, injector.limit(count))
            },
            pread: { fd, buffer, count, offset in
                injector.fail(.pread).map(Int.init) ?? base.pread(fd, buffer, injector.limit(count), offset)
            },
            pwrite: { fd, buffer, count, offset in
                injector.fail(.pwrite).map(Int.init) ?? base.pwrite(fd, buffer, injector.limit(count), offset)
            },
            fsync: { fd in injector.fail(.fsync) ?? base.fsync(fd) },
            ftruncate: { fd, length in injector.fail(.ftruncate) ?? base.ftruncate(fd, length) },
            rename: { from, to in injector.fail(.rename) ?? base.rename(from, to) },
            unlink: { path in injector.fail(.unlink) ?? base.unlink(path) }
        )
    }
}

/// Faults to inject into a ``Syscalls`` set, changeable while the code under test runs.
///
/// A mock for what no real disk does on demand; tests name it as such. Thread-safe.
package final class FaultInjector: Sendable {
    /// One of the calls of ``Syscalls``.
    package enum Call: Sendable, Hashable, CaseIterable {
        case open, read, write, pread, pwrite, fsync, ftruncate, rename, unlink
    }

    private struct Plan {
        /// Calls failing with an errno: how many calls still succeed first, then how many more
        /// times they fail (nil: every time).
        var failures: [Call: (code: Int32, succeedFirst: Int, remaining: Int?)] = [:]
        /// The most bytes one read or write moves; nil for no limit (short transfers).
        var transferLimit: Int?
        /// How many failures were injected, by call.
        var injected: [Call: Int] = [:]
    }

    private let plan = LockedBox(Plan())

    /// No faults until some are set.
    package init() {}

    /// Makes `call` fail with `code` (`ENOSPC`, `EIO`, `EINTR` …) `times` times, or every time
    /// when `times` is nil, after letting the next `after` calls succeed (default 0). `after`
    /// puts a fault mid-transfer by count, not by timing: a disk that fills after so many writes.
    package func fail(_ call: Call, with code: Int32, times: Int? = nil, after: Int = 0) {
        plan.withLock { $0.failures[call] = (code, max(0, after), times) }
    }

    /// Stops injecting failures into `call`.
    package func heal(_ call: Call) {
        plan.withLock { _ = $0.failures.removeValue(forKey: call) }
    }

    /// Makes every read and write move at most `bytes` bytes per call (nil: no limit), as a
    /// pipe, a signal or a nearly full disk can.
    package func limitTransfers(to bytes: Int?) {
        plan.withLock { $0.transferLimit = bytes }
    }

    /// How many times a failure was injected into `call`.
    package func injectedCount(_ call: Call) -> Int {
        plan.withLock { $0.injected[call] ?? 0 }
    }

    /// -1 with `errno` set when `call` should fail now, else nil.
    fileprivate func fail(_ call: Call) -> Int32? {
        let code = plan.withLock { plan -> Int32? in
            guard let failure = plan.failures[call] else { return nil }
            if failure.succeedFirst > 0 {
                plan.failures[call]?.succeedFirst -= 1
                return nil
            }
            if let remaining = failure.remaining {
                if remaining <= 1 { plan.failures[call] = nil } else { plan.failures[call]?.remaining = remaining - 1 }
            }
            plan.injected[call, default: 0] += 1
            return failure.code
        }
        guard let code else { return nil }
        errno = code
        return -1
    }

    fileprivate func limit(_ count: Int) -> Int {
        plan.withLock { plan in plan.transferLimit.map { min(count, max(1, $0)) } ?? count }
    }
}

// The C library's calls by other names: inside the closures above their own names are taken.
#if canImport(Glibc)
private let systemOpen: @Sendable (String, Int32, mode_t) -> Int32 = { Glibc.open($0, $1, $2) }
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
private let systemPread = Glibc.pread
private let systemPwrite = Glibc.pwrite
private let systemFsync = Glibc.fsync
private let systemFtruncate = Glibc.ftruncate
private let systemRename = Glibc.rename
private let systemUnlink: @Sendable (String) -> Int32 = { Glibc.unlink($0) }
#elseif canImport(Darwin)
private let systemOpen: @Sendable (String, Int32, mode_t) -> Int32 = { Darwin.open($0, $1, $2) }
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
private let systemPread = Darwin.pread
private let systemPwrite = Darwin.pwrite
private let systemFsync = Darwin.fsync
private let systemFtruncate = Darwin.ftruncate
private let systemRename = Darwin.rename
private let systemUnlink: @Sendable (String) -> Int32 = { Darwin.unlink($0) }
#endif
