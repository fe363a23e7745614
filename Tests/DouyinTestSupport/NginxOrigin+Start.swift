import DouyinBackendLauncher
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Knowing the nginx just started is up, and is the one answering on its port.
///
/// The port is found free by binding port 0 and closing it, so another process can take it
/// before nginx binds it; nginx then fails to start, and a probe that only connects would take
/// that process's answers for nginx's. So the probe asks for a path whose answer is a token
/// new at each start, written only in this nginx's config. And it waits without sleeping: it
/// probes each time nginx writes to its stderr (its start-up notices; the last ones, from
/// `ngx_os_status`, come after it listens), and gives up when nginx exits (end of stderr).
extension NginxOrigin {
    /// Starts nginx on a thread of its own (``onOwnThread(_:)``), so its start-up wait, a few
    /// milliseconds of blocking reads, is not made on the task pool.
    ///
    /// - Parameter extraLocations: nginx config added inside the server block, as for
    ///   ``init(extraLocations:)``; none by default.
    /// - Throws: ``StartError`` when nginx is not installed or did not start in five attempts.
    public static func start(extraLocations: String = "") async throws -> NginxOrigin {
        try await onOwnThread { try NginxOrigin(extraLocations: extraLocations) }
    }

    /// ``start(extraLocations:)`` on the port `ports` gives for each attempt, as for
    /// ``init(extraLocations:ports:)``.
    package static func start(extraLocations: String, ports: @escaping @Sendable () throws -> Int) async throws -> NginxOrigin {
        try await onOwnThread { try NginxOrigin(extraLocations: extraLocations, ports: ports) }
    }

    /// The path answered with the start's token (kept out of ``requests()``).
    static let probePath = "/__douyinkit-start-probe"

    /// A start that no output ends in this long is killed (its stderr then ends): a watchdog,
    /// not a wait; a start takes a few milliseconds, and 120 s is far above what a loaded
    /// machine takes (a whole-suite pass on two cores has stood still for 80 s; 30 s before).
    static let startLimit: DispatchTimeInterval = .seconds(120)

    /// Waits until the nginx of `process` answers the probe on `port` with `token`, reading its
    /// start-up output from `output`. Returns `nil` once it does (the rest of its output then goes
    /// to `log` on a thread of its own), or what it wrote before exiting without answering.
    static func waitForStart(of process: Process, port: Int, token: String, output: FileHandle, log: URL) -> String? {
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + startLimit, execute: watchdog)
        defer { watchdog.cancel() }
        var written = Data()
        while true {
            let chunk = output.availableData  // blocks until nginx writes or exits
            if chunk.isEmpty { return String(decoding: written, as: UTF8.self) }
            written += chunk
            if answersProbe(port: port, token: token) {
                drain(output, into: log, after: written)
                return nil
            }
        }
    }

    /// Whether the server on `port` answers the probe path with `token`; a silent server is
    /// given 5 s.
    private static func answersProbe(port: Int, token: String) -> Bool {
        guard let socketFD = connectLoopback(port: port) else { return false }
        defer { close(socketFD) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(probePath) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socketFD, $0.baseAddress, $0.count, 0) }) == request.count else { return false }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 65_536 {
            let count = recv(socketFD, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        return text.hasPrefix("HTTP/1.1 200") && text.hasSuffix("\r\n\r\n" + token)
    }

    /// Copies what nginx writes to stderr from now on into `log` until it exits, so a full pipe
    /// never blocks it.
    private static func drain(_ output: FileHandle, into log: URL, after written: Data) {
        try? written.write(to: log)
        let thread = Thread {
            let file = try? FileHandle(forWritingTo: log)
            file?.seekToEndOfFile()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                file?.write(chunk)
            }
            try? file?.close()
        }
        thread.name = "NginxOrigin.stderr"
        thread.start()
    }
}
