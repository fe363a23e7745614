import DouyinSupport
import Foundation

/// The names a video cache gives an entry's files, derived as the cache derives them (the
/// md5 hex of the URL, the default cache key), for tests that plant or edit them.
public enum VideoCacheFiles {
    /// The entry's key: the md5 hex of the URL's absolute string.
    public static func key(of url: URL) -> String { MD5Digest.hex(Data(url.absoluteString.utf8)) }

    /// The data file's name (`<key>.mp4` for an `.mp4` URL).
    public static func dataFileName(of url: URL) -> String {
        let known: Set<String> = ["mp4", "m4v", "mov", "webm", "ts", "mkv", "m4a", "mp3", "aac", "3gp", "flv"]
        let ext = url.pathExtension.lowercased()
        return key(of: url) + "." + (known.contains(ext) ? ext : "data")
    }

    /// The index file's name.
    public static func indexName(of url: URL) -> String { key(of: url) + ".meta" }

    /// The byte of the directory's `lock` file that stands for the entry.
    public static func lockOffset(of url: URL) -> Int64 { Int64(key(of: url).prefix(15), radix: 16)! }
}

/// Another process holding one video cache entry's lock, as a second `feed preload` or
/// `video get` on the same directory would: a Python child takes the entry's `fcntl` record
/// lock in `<directory>/lock` and keeps it until ``release()`` (or this value's end).
/// `fcntl` locks belong to a process, so no lock taken inside the test process can stand in.
public final class ForeignEntryLock: @unchecked Sendable {
    // @unchecked Sendable: the Process and Pipe are only touched in init and release(), which
    // a test calls from one task.
    private let process = Process()
    private let input = Pipe()
    private var released = false
    private var end: ProcessEnd?

    /// Takes the lock of `url`'s entry in the cache `directory` (created if needed); returns
    /// once it is held; async code calls ``take(directory:url:)``.
    @available(*, noasync, message: "blocks a thread async tasks share until the child holds the lock: use `await ForeignEntryLock.take(directory:url:)`")
    public init(directory: URL, url: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))
            print("locked", flush=True)
            sys.stdin.read()
            """
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, directory.appendingPathComponent("lock").path, String(VideoCacheFiles.lockOffset(of: url))]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe.forwardedToStandardError()
        end = try process.runWithSignalsUnblocked()
        // The child says so once it holds the lock (its only output).
        let said = output.fileHandleForReading.waitFor("locked\n")
        guard said else {
            process.terminate()
            throw CocoaError(.fileLocking)
        }
    }

    /// ``init(directory:url:)`` on a thread of its own (``onOwnThread(_:)``).
    public static func take(directory: URL, url: URL) async throws -> ForeignEntryLock {
        try await onOwnThread { try ForeignEntryLock(directory: directory, url: url) }
    }

    deinit { release() }

    /// Lets the lock go (the child exits) and waits for it.
    public func release() {
        guard !released else { return }
        released = true
        try? input.fileHandleForWriting.close()
        end?.waitHere()
    }
}

private extension FileHandle {
    /// Reads until `marker` has arrived (`true`) or the other end closed first (`false`).
    func waitFor(_ marker: String) -> Bool {
        var received = Data()
        while received.range(of: Data(marker.utf8)) == nil {
            let chunk = availableData
            if chunk.isEmpty { return false }
            received.append(chunk)
        }
        return true
    }
}
