import DouyinTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP server on loopback that misbehaves on purpose, for what nginx will not do: a
/// body delimited only by closing the connection, an endless body, a `Content-Length` that lies.
///
/// Debian's `/usr/bin/python3` running `scripts/servers/hostile_origin.py` (the standard
/// library's `http.server`; the `python3` on PATH may be another interpreter). Paths, `N` a
/// byte count:
/// - `/close/N`: `200`, no `Content-Length`, N bytes, then the connection closes;
/// - `/close-cut/N`: the same head, but the server closes after N/2 bytes (a truncation no
///   client can see);
/// - `/endless`: `200`, no `Content-Length`, bytes until the client goes away (64 KiB blocks
///   with a 1 ms pause after each, see `PAUSE` in hostile_origin.py);
/// - `/chunked/N`: `200`, `Transfer-Encoding: chunked`, N bytes in 4 KiB chunks, properly ended;
/// - `/chunked-endless`: chunks until the client goes away (paced likewise);
/// - `/announce/N`: `200` with `Content-Length: N` but only 1000 bytes sent, then it waits
///   (a client that reads on would hang; one that refuses from the head does not);
/// - `/gzip-close/N`: `200`, `Content-Encoding: gzip`, no length, N zero bytes gzipped, then close.
/// Each body byte `i` is `i * 7 mod 256` (``HostileOrigin/body(_:)``).
final class HostileOrigin: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; Process is only stopped from deinit.
    let port: Int
    private let process: Process
    private let end: ProcessEnd

    /// The server's script, beside the package's other stand-in servers.
    static let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/hostile_origin.py")

    /// Starts the server and returns once it printed its port; async code calls ``start()``.
    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await HostileOrigin.start()`")
    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script.path]
        let output = Pipe()
        process.standardOutput = output
        // Not the test runner's stderr: a server outliving the test would hold that pipe open,
        // and the runner waits for it to close.
        process.standardError = FileHandle.nullDevice
        end = try process.runWithSignalsUnblocked()
        // The script prints its port once it listens; reading that line is the readiness wait.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            throw StartError()
        }
        self.port = port
    }

    /// ``init()`` on a thread of its own (``onOwnThread(_:)``), not on the task pool.
    static func start() async throws -> HostileOrigin {
        try await onOwnThread { try HostileOrigin() }
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String { "the hostile origin did not start (it needs /usr/bin/python3)" }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        end.waitHere()
    }

    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The first `count` bytes every path serves.
    static func body(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    }
}
