import DouyinSupport
import DouyinBackendLauncher
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real nginx serving a temporary root on a free loopback port, for integration tests.
///
/// Starts in the foreground as a single process (`daemon off; master_process off;`) from a
/// config written to a temp prefix; ``stop()`` (or release) ends it. The access log records
/// `$request_uri $status $bytes_sent "$http_range"` a line, so tests count what the origin sent.
public final class NginxOrigin: Sendable {

    /// The folder nginx serves; write files here.
    public let root: URL
    /// The port it listens on.
    public let port: Int
    private let prefix: URL
    private let child: OwnedChild

    /// Why nginx could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The nginx binary: `$NGINX`, else the first found on the usual paths.
    public static var binary: String? {
        if let custom = ProcessInfo.processInfo.environment["NGINX"] { return custom }
        return ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx", "/usr/bin/nginx"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts nginx; `extraLocations` is nginx config added inside the server block
    /// (e.g. a `location /slow/ { limit_rate 64k; }`). Blocks while nginx starts: async code
    /// calls ``start(extraLocations:)``.
    @available(*, noasync, message: "blocks a thread async tasks share while nginx starts: use `await NginxOrigin.start(extraLocations:)`")
    public convenience init(extraLocations: String = "") throws {
        try self.init(extraLocations: extraLocations, ports: { try NginxOrigin.freePort() })
    }

    /// Starts nginx on the port `ports` gives for each attempt (five at most): tests hand it a
    /// port another server holds, to check that server is not taken for nginx.
    @available(*, noasync, message: "blocks a thread async tasks share while nginx starts: use `await NginxOrigin.start(extraLocations:ports:)`")
    package init(extraLocations: String, ports: () throws -> Int) throws {
        guard let binary = Self.binary else { throw StartError(description: "nginx is not installed (make test installs it)") }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        root = prefix.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        var lastError = ""
        for _ in 0..<5 {
            let port = try ports()
            let token = UUID().uuidString
            let config = Self.config(prefix: prefix.path, root: root.path, port: port, token: token, extra: extraLocations)
            let configURL = prefix.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: configURL)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-p", prefix.path, "-c", configURL.path]
            let output = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = output
            let end = try process.runWithSignalsUnblocked()
            let failure = Self.waitForStart(of: process, port: port, token: token, output: output.fileHandleForReading,
                                            log: prefix.appendingPathComponent("logs/stderr.log"))
            guard let failure else {
                self.port = port
                child = OwnedChild(process, end: end)
                return
            }
            process.terminate()
            end.waitHere()
            lastError = failure.isEmpty ? "no output" : failure
        }
        throw StartError(description: "nginx did not start: \(lastError)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }

    /// The URL of a path under the root, such as `/covers/a.webp`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Writes a file under the root.
    public func serve(_ data: Data, at path: String) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// One access log line.
    public struct Request: Sendable, Hashable {
        /// The request URI.
        public let uri: String
        /// The status sent.
        public let status: Int
        /// Bytes sent, headers included.
        public let bytesSent: Int
        /// The Range header, or `-`.
        public let range: String
    }

    /// The requests served so far, in order.
    ///
    /// nginx writes a request's log line after sending its response, so a client acting on a
    /// response head can look before the line is there. One round trip of a marker request
    /// first makes sure: nginx's single process finishes (and logs) what it has sent before it
    /// reads the next request. Marker lines, and the start-up probe's, are left out.
    public func requests() -> [Request] {
        _ = loopbackExchange(port: port, Self.markerPath)
        return loggedRequests().filter { $0.uri != Self.markerPath && $0.uri != Self.probePath }
    }

    private static let markerPath = "/__douyinkit-log-marker"

    private func loggedRequests() -> [Request] {
        guard let text = try? String(contentsOf: prefix.appendingPathComponent("logs/access.log"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3)
            guard parts.count == 4, let status = Int(parts[1]), let bytes = Int(parts[2]) else { return nil }
            return Request(uri: String(parts[0]), status: status, bytesSent: bytes, range: String(parts[3].dropFirst().dropLast()))
        }
    }

    /// Stops nginx and waits for it to exit.
    public func stop() {
        child.stop()
    }

    /// The config of one start: the error log's notices also go to stderr (the start-up wait
    /// reads them), and ``probePath`` answers `token`.
    private static func config(prefix: String, root: String, port: Int, token: String, extra: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        error_log \(prefix)/logs/error.log warn;
        error_log stderr notice;
        pid \(prefix)/logs/nginx.pid;
        events { worker_connections 256; }
        http {
            log_format probe '$request_uri $status $bytes_sent "$http_range"';
            access_log \(prefix)/logs/access.log probe;
            client_body_temp_path \(prefix)/body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            default_type application/octet-stream;
            sendfile on;
            keepalive_timeout 30;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
                location = \(probePath) { return 200 "\(token)"; }
                \(extra)
            }
        }
        """
    }

    /// Asks the kernel for a free port by binding port 0; nginx then binds it (a retry covers
    /// the rare case that another process takes it in between).
    package static func freePort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw StartError(description: "socket() failed") }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0 }
        }
        guard bound else { throw StartError(description: "bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
