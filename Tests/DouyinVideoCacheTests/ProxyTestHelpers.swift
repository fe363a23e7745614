import DouyinTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process (curl, ffmpeg) printed and how it exited.
typealias ProcessResult = TestMedia.RunResult

/// Runs `executable` with `arguments` without blocking a thread.
func runProcess(_ executable: String, _ arguments: [String]) async throws -> ProcessResult {
    try await TestMedia.run(executable, arguments)
}

/// The first of `paths` that is an executable file; a missing tool fails the test (make test
/// installs it), it never skips.
func tool(_ name: String) throws -> String {
    let paths = ["/usr/bin/\(name)", "/usr/local/bin/\(name)", "/opt/homebrew/bin/\(name)"]
    guard let found = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw ToolMissing(name: name)
    }
    return found
}

/// A tool the test needs is not installed.
struct ToolMissing: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) is not installed (make test installs it)" }
}

/// One curl exchange: status, header fields (names lowercased, last wins) and body.
struct CurlAnswer: Sendable {
    var status: Int
    var fields: [String: String]
    var body: Data
    var exitCode: Int32
    /// curl's own error line (`-sS`), for a failure message.
    var stderr: String
}

/// `curl` of `url` with extra `arguments` (`-H`, `-I`, `-r`), HTTP/1.1, headers and body split.
/// curl gives up after 120 s, past URLSession's 60 s request timeout: a stalled origin fetch
/// then shows as the proxy's 502 naming the error, not as curl's own status-0 timeout (the two
/// deadlines were equal, and a proxy test once failed with no answer at all).
func curl(_ url: URL, _ arguments: [String] = []) async throws -> CurlAnswer {
    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let headers = scratch.appending("headers"), body = scratch.appending("body")
    // Under Thread Sanitizer the whole process once stood still for ~150 s while every suite
    // started, and a proxy that had accepted curl's connection had not read its request 120 s
    // later: there curl waits 600 s (a hang guard, as HangGuard says).
    let limit = ThreadSanitizer.isActive ? "600" : "120"
    let result = try await runProcess(try tool("curl"), ["-sS", "--http1.1", "--max-time", limit, "-D", headers.path, "-o", body.path] + arguments + [url.absoluteString])
    let headText = (try? String(contentsOf: headers, encoding: .utf8)) ?? ""
    var status = 0
    var fields: [String: String] = [:]
    for line in headText.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") {
            status = Int(line.split(separator: " ")[1]) ?? 0
            fields = [:]
        } else if let colon = line.firstIndex(of: ":") {
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
    return CurlAnswer(status: status, fields: fields, body: (try? Data(contentsOf: body)) ?? Data(), exitCode: result.status, stderr: result.stderr)
}

/// A raw loopback client socket with a receive timeout, for requests no real client sends.
final class RawClient: @unchecked Sendable {
    // @unchecked: used from one thread at a time (the test's `onOwnThread` closures, in turn).
    let fd: Int32

    init(port: Int) throws {
        guard let fd = connectLoopback(port: port) else { throw POSIXError(.ECONNREFUSED) }
        self.fd = fd
        // A hang guard, far above what a loaded machine takes (a whole-suite pass on two cores
        // has stood still for 80 s): an answer that never comes reads as closed.
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends all of `bytes`; `false` once the server closed or reset the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Everything until the server closes (or resets, or 60 s pass): what a refused client sees.
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            if count < 0 { return (all, errno == ECONNRESET) }
            if count == 0 { return (all, true) }
            all += buffer[0..<count]
        }
    }
}

/// `count` idle connections to `127.0.0.1:port`, held by a Python child
/// (scripts/servers/idle_clients.py), not by the test process: with a thousand sockets of its
/// own the test process passes the descriptor count at which swift-corelibs-foundation 6.3's
/// `Process.run()` can read past its `/proc/self/fd` buffer, and any test starting a child
/// then (curl here, nginx or ffmpeg in a suite beside) could crash the whole run.
final class IdleClients: @unchecked Sendable {
    // @unchecked: the Process and Pipes are used from one test, one call at a time.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let end: ProcessEnd

    /// Opens the connections; returns once all of them are connected.
    init(port: Int, count: Int) async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.packageRoot.appendingPathComponent("scripts/servers/idle_clients.py").path, String(port), String(count)]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = Pipe.forwardedToStandardError()
        end = try await process.start()
        let line = try await onOwnThread { [output] in output.firstLine() }
        guard line == "connected \(count)\n" else {
            await stop()
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Whether the server ended the first connection (end of stream or reset) within 60 s.
    func firstWasClosed() async throws -> Bool {
        input.fileHandleForWriting.write(Data("first\n".utf8))
        return try await onOwnThread { [output] in output.firstLine() } == "closed\n"
    }

    /// How many of the connections the server has not ended (checked without waiting).
    func openCount() async throws -> Int? {
        input.fileHandleForWriting.write(Data("count-open\n".utf8))
        let line = try await onOwnThread { [output] in output.firstLine() }
        return Int(line.dropFirst("open ".count).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Closes every connection (the child ends when its stdin closes; one still running 10 s
    /// later is terminated) and waits for the child.
    func stop() async {
        await stopServer(process, end: end, input: input)
    }
}
