import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file layer against real files, with faults injected through the Syscalls seam (a
/// mock, for what no real disk does on demand: ENOSPC, EIO, EINTR, short transfers).
@Suite("FileIO")
struct FileIOTests {
    @Test func diskFullDuringWriteIsTypedAndLeavesNoPartialFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let injector = FaultInjector()
        injector.fail(.pwrite, with: ENOSPC)
        let files = FileIO(syscalls: Syscalls.system.injecting(injector))
        let path = directory.appending("entry").path
        #expect(throws: SystemError(call: "pwrite", code: ENOSPC)) {
            try files.writeNewFile(Data(repeating: 7, count: 10_000), to: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(SystemError(call: "pwrite", code: ENOSPC).isNoSpace)
    }

    @Test func shortTransfersAndInterruptionsStillMoveEveryByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let injector = FaultInjector()
        injector.limitTransfers(to: 7)
        injector.fail(.pwrite, with: EINTR, times: 5)
        injector.fail(.pread, with: EINTR, times: 5)
        injector.fail(.open, with: EINTR, times: 2)
        let files = FileIO(syscalls: Syscalls.system.injecting(injector))
        var random = SeededRandom(seed: 42)
        let bytes = Data(random.bytes(10_000))
        let path = directory.appending("entry").path
        try files.writeNewFile(bytes, to: path)
        #expect(try files.readFile(path) == bytes, "\(random)")
        #expect(injector.injectedCount(.pwrite) == 5)
        #expect(injector.injectedCount(.pread) == 5)
        #expect(injector.injectedCount(.open) == 2)
    }

    @Test func ioErrorOnReadIsTyped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("entry").path
        try FileIO().writeNewFile(Data("hello".utf8), to: path)
        let injector = FaultInjector()
        injector.fail(.pread, with: EIO, times: 1)
        let files = FileIO(syscalls: Syscalls.system.injecting(injector))
        #expect(throws: FileIO.ReadFailure.system(SystemError(call: "pread", code: EIO))) { try files.readFile(path) }
        #expect(try files.readFile(path) == Data("hello".utf8))  // healed after one failure
    }

    /// `after:` lets a counted number of calls through first: a disk that fills mid-file, the
    /// same way however fast or slow the caller is.
    @Test func aFaultAfterNCallsLetsExactlyNCallsThrough() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let injector = FaultInjector()
        injector.limitTransfers(to: 100)
        injector.fail(.pwrite, with: ENOSPC, after: 3)
        let files = FileIO(syscalls: Syscalls.system.injecting(injector))
        let descriptor = try files.open(directory.appending("entry").path, flags: O_RDWR | O_CREAT)
        defer { files.close(descriptor) }
        #expect(throws: SystemError(call: "pwrite", code: ENOSPC)) {
            try files.write(Data(repeating: 1, count: 1_000), to: descriptor, at: 0)
        }
        #expect(try files.status(descriptor).st_size == 300, "three 100-byte writes, then the fault")
        #expect(injector.injectedCount(.pwrite) == 1)
    }

    @Test func positionedWritesAndReadsAtInt64Offsets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = FileIO()
        let descriptor = try files.open(directory.appending("sparse").path, flags: O_RDWR | O_CREAT)
        defer { files.close(descriptor) }
        let offset: Int64 = 3 << 30  // past 2^31: offsets must not go through Int32
        try files.write(Data("tail".utf8), to: descriptor, at: offset)
        #expect(try files.read(4, from: descriptor, at: offset) == Data("tail".utf8))
        #expect(try files.read(10, from: descriptor, at: offset + 2) == Data("il".utf8))  // short at the end
        #expect(try files.read(4, from: descriptor, at: 0) == Data(repeating: 0, count: 4))  // a hole reads zeros
        try files.sync(descriptor)
        try files.truncate(descriptor, to: 0)
        #expect(try files.status(descriptor).st_size == 0)
    }

    /// A read asks for room of its whole count before the kernel fills it: a short read at the
    /// end returns exactly what was read, whether most of the room was used or not; zero bytes
    /// is empty. (A count no memory can hold throws `malloc`'s ENOMEM; not asserted here, as a
    /// sanitizer's allocator ends the process on such a request instead of returning nil.)
    @Test func shortReadsKeepOnlyTheirBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = FileIO()
        let descriptor = try files.open(directory.appending("small").path, flags: O_RDWR | O_CREAT)
        defer { files.close(descriptor) }
        let body = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try files.write(body, to: descriptor, at: 0)
        #expect(try files.read(1 << 20, from: descriptor, at: 0) == body, "under half the room used: copied out")
        #expect(try files.read(1500, from: descriptor, at: 0) == body, "most of the room used: kept")
        #expect(try files.read(0, from: descriptor, at: 0).isEmpty)
        #expect(try files.read(10, from: descriptor, at: 5000).isEmpty, "past the end")
    }

    /// A symlink, a directory or a FIFO where a cache file should be is refused, never followed
    /// or blocked on; writing a new file never goes through a planted symlink.
    @Test func plantedSymlinksDirectoriesAndFIFOsAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = FileIO()
        let victim = directory.appending("victim").path
        try files.writeNewFile(Data("victim".utf8), to: victim)
        let link = directory.appending("link").path
        #expect(symlink(victim, link) == 0)
        #expect(throws: FileIO.ReadFailure.system(SystemError(call: "open", code: ELOOP))) { try files.readFile(link) }
        #expect(throws: SystemError(call: "open", code: EEXIST)) { try files.writeNewFile(Data("x".utf8), to: link) }
        #expect(try files.readFile(victim) == Data("victim".utf8))

        let folder = directory.appending("folder").path
        try files.makeDirectory(folder)
        #expect(throws: FileIO.ReadFailure.notARegularFile(.directory)) { try files.readFile(folder) }

        let fifo = directory.appending("fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: FileIO.ReadFailure.notARegularFile(.fifo)) { try files.readFile(fifo) }

        let listed = files.listFiles(in: directory.url.path).map(\.name)
        #expect(listed == ["victim"])
    }

    /// The bounded reader (issue 36 item 2): a device that never ends is refused from `fstat`
    /// before a byte is read, a file past the caller's limit by its size, and a symlink is
    /// followed only when the caller says so (a path a person named).
    @Test func devicesAndFilesPastTheLimitAreRefusedBeforeReading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = FileIO()
        #expect(throws: FileIO.ReadFailure.notARegularFile(.characterDevice)) { try files.readFile("/dev/zero", maximumSize: 1 << 20, followingSymlinks: true) }
        #expect(throws: FileIO.ReadFailure.notARegularFile(.characterDevice)) { try files.readFile("/dev/urandom") }
        let path = directory.appending("ten").path
        try files.writeNewFile(Data("0123456789".utf8), to: path)
        #expect(throws: FileIO.ReadFailure.tooLarge(size: 10, limit: 9)) { try files.readFile(path, maximumSize: 9) }
        #expect(try files.readFile(path, maximumSize: 10) == Data("0123456789".utf8))
        let link = directory.appending("link").path
        #expect(symlink(path, link) == 0)
        #expect(try files.readFile(link, maximumSize: 10, followingSymlinks: true) == Data("0123456789".utf8))
        #expect(FileIO.ReadFailure.notARegularFile(.fifo).description == "it is a FIFO, not a regular file")
    }

    @Test func renameFailureIsTyped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let injector = FaultInjector()
        injector.fail(.rename, with: EIO)
        let files = FileIO(syscalls: Syscalls.system.injecting(injector))
        let source = directory.appending("a").path
        try files.writeNewFile(Data("a".utf8), to: source)
        #expect(throws: SystemError(call: "rename", code: EIO)) { try files.rename(source, to: directory.appending("b").path) }
        injector.heal(.rename)
        try files.rename(source, to: directory.appending("b").path)
        #expect(try files.readFile(directory.appending("b").path) == Data("a".utf8))
    }
}
