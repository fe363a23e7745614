import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#else
import Darwin
private let systemRead = Darwin.read
#endif

// Small pieces every harness that starts a local server needs (the backend here; nginx and the
// WebSocket test server in DouyinTestSupport, which re-exports this module).

/// A TCP socket connected to `127.0.0.1:port`, or `nil` when nothing accepts there; the caller
/// closes it. The harnesses use it to see a server is up and to talk to its debug endpoints
/// without a URLSession of their own.
package func connectLoopback(port: Int) -> Int32? {
    #if canImport(Glibc)
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let socketFD = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard socketFD >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        close(socketFD)
        return nil
    }
    return socketFD
}

/// One blocking HTTP/1.0 exchange with the server on `127.0.0.1:port` over a plain socket (a
/// harness must not share, or need, a URLSession with the code under test): sends `method path`
/// with `body`, reads until the server closes, and returns the answer's status line and body.
/// `nil` when nothing listens there, the request could not be sent whole, or no HTTP head came.
package func loopbackExchange(port: Int, _ path: String, method: String = "GET", body: Data = Data()) -> (status: String, body: Data)? {
    guard let socketFD = connectLoopback(port: port) else { return nil }
    defer { close(socketFD) }
    let request = Data("\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    let sent = request.withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, 0) }
    guard sent == request.count else { return nil }
    var response = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = recv(socketFD, &buffer, buffer.count, 0)
        if count <= 0 { break }
        response.append(contentsOf: buffer[0..<count])
    }
    guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { return nil }
    let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
    return (String(head.split(separator: "\r\n").first ?? ""), Data(response[split.upperBound...]))
}

/// Runs a blocking `body` on a new thread of its own and returns its result.
///
/// Not on the task pool (two threads on a two-core machine), and not on the global dispatch
/// queue either: its worker count also follows the core count, and FoundationNetworking hands
/// session callbacks to it. Three tests each blocking a global-queue worker in a 30 s wait for
/// a backend request stalled every URLSession in the process until the waits timed out.
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await onNewThread(named: "DouyinBackendLauncher.onOwnThread", body)
}

extension Pipe {
    /// The first line a started child process writes here (without waiting for more), for the
    /// servers that print their port once bound; reading blocks until then, no sleeps. Empty or
    /// partial when the process ends first.
    package func firstLine() -> String {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        return String(decoding: line, as: UTF8.self)
    }
}

extension Pipe {
    /// A pipe for a long-running child's stderr whose bytes this process copies to its own
    /// stderr as they arrive.
    ///
    /// Why not hand the child this process's stderr itself: `swift test` reads the test
    /// process's output through a pipe until every writer has closed it, so a server that
    /// outlived a crashed test process kept the whole test run waiting until CI's time ran
    /// out. A child holding this pipe instead loses only its reader when this process ends.
    ///
    /// The copy runs on a thread of its own that blocks in read(2) until the end of the pipe,
    /// and only then lets the pipe's read end go (and be closed). Why not a readability
    /// handler (a dispatch source on the descriptor): the source is cancelled at the end but
    /// its cancellation is carried out later, on libdispatch's event thread, and the pipe was
    /// closed as soon as the stopped server's `Process` went away; a descriptor closed before
    /// its source's cancellation is done is the known cause of libdispatch crashing in
    /// `_dispatch_event_loop_drain`, which a whole-suite run did here, while a test stopped
    /// the backend.
    package static func forwardedToStandardError() -> Pipe {
        let pipe = Pipe()
        let reading = pipe.fileHandleForReading
        let copier = Thread {
            // read(2) and the throwing write, not `availableData` and `write(_:)`: those stop
            // the process on a read error or a closed stderr (EPIPE), and this only passes
            // text along.
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { systemRead(reading.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                try? FileHandle.standardError.write(contentsOf: chunk[..<count])
            }
        }
        copier.name = "DouyinBackendLauncher.forwardedToStandardError"
        copier.stackSize = 256 << 10
        copier.start()
        return pipe
    }
}

/// Starts a stand-in server: `python script --port 0 arguments…`, its stderr copied to ours
/// (``Pipe/forwardedToStandardError()``), and reads the line it prints once bound,
/// `listening on HOST:PORT`. Blocks until then: from async code call it inside
/// ``onOwnThread(_:)``.
/// - Parameters:
///   - input: the server's stdin, for one that exits when its stdin closes (stop it with
///     ``stopServer(_:end:input:grace:)``); absent (the default), a pipe that stays open as
///     long as the returned process object lives, so a server that watches its stdin still
///     ends with this process.
///   - output: the pipe its stdout goes to; the caller may read what the server prints later
///     (after a pause: what arrives in the same read as the port line is dropped). A fresh pipe
///     when not given.
/// - Returns: the running process, the port it printed, and the process's end (wait for it
///   instead of `waitUntilExit()`).
/// - Throws: ``LocalBackend/StartError`` naming `name` (the process ended and waited for) when
///   the first line is anything else.
package func startServer(_ name: String, python: String, script: URL, arguments: [String] = [],
                         input: Pipe? = nil, output: Pipe = Pipe()) throws -> (Process, Int, ProcessEnd) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script.path, "--port", "0"] + arguments
    process.standardInput = input ?? Pipe()
    process.standardOutput = output
    process.standardError = Pipe.forwardedToStandardError()
    let end = try process.runWithSignalsUnblocked()
    // Only the first line counts (a read may bring more: what follows it is not the caller's).
    let text = String(output.firstLine().prefix { $0 != "\n" })
    guard text.hasPrefix("listening on "),
          let port = text.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
        process.terminate()
        end.waitHere()
        throw LocalBackend.StartError(description: "\(name) did not start (it printed \(text.debugDescription))")
    }
    return (process, port, end)
}

/// Stops a server started with an `input` pipe the clean way: closes its stdin, so it finishes
/// and exits by itself, and awaits its `end` (no thread blocked). A server still running `grace`
/// later (10 s by default) is terminated: a hung one does not hang its caller.
package func stopServer(_ process: Process, end: ProcessEnd, input: Pipe, grace: Duration = .seconds(10)) async {
    try? input.fileHandleForWriting.close()
    let (seconds, attoseconds) = grace.components
    DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) * 1e-18) {
        if process.isRunning { process.terminate() }
    }
    await end.wait()
}
