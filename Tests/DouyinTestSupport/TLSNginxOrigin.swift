import DouyinBackendLauncher
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real nginx over TLS for the HTTP transport's tests: one root served on three loopback
/// ports — plain HTTP/1.1, HTTPS with HTTP/2 (`listen … ssl http2`) under a certificate for
/// 127.0.0.1 and localhost from the tests' own CA, and HTTPS under a certificate from that CA
/// for another name (`other.example`) — with an access log that says which connection and
/// protocol served each request, so a test can see HTTP/2 and connection reuse from the
/// server's side.
///
/// The certificates are scripts/servers/ws_tls_certs.sh's, made by `openssl` at start.
public final class TLSNginxOrigin: Sendable {
    /// One nginx for the process's tests (each test reads its own paths).
    public static let shared = StartedOnce { try TLSNginxOrigin() }

    /// The folder nginx serves; write files here.
    public let root: URL
    /// Plain HTTP/1.1.
    public let plainPort: Int
    /// HTTPS (HTTP/2 offered by ALPN) under a certificate for 127.0.0.1 and localhost.
    public let securePort: Int
    /// HTTPS under a certificate for `other.example` only: a wrong host name for 127.0.0.1.
    public let wrongHostPort: Int
    /// The PEM file of the tests' CA, which signed both certificates.
    public let caFile: String
    private let prefix: URL
    private let child: OwnedChild

    /// One access log line.
    public struct Request: Sendable, Hashable {
        /// The port the request came in on.
        public let port: Int
        /// nginx's connection serial number (`$connection`): the same for requests on one
        /// connection.
        public let connection: Int
        /// `HTTP/1.1`, `HTTP/2.0` … (`$server_protocol`).
        public let serverProtocol: String
        /// The method.
        public let method: String
        /// The request URI.
        public let uri: String
        /// The status sent.
        public let status: Int
    }

    /// Makes the certificates and starts nginx; blocks meanwhile (async code: ``shared``).
    @available(*, noasync, message: "blocks a thread async tasks share while nginx starts: use `await TLSNginxOrigin.shared.value()`")
    public init() throws {
        guard let binary = NginxOrigin.binary else { throw NginxOrigin.StartError(description: "nginx is not installed (make test installs it)") }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-tls-\(UUID().uuidString)")
        root = prefix.appendingPathComponent("root")
        let certificates = prefix.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/ws_tls_certs.sh")
        let certs = Process()
        certs.executableURL = URL(fileURLWithPath: "/bin/sh")
        certs.arguments = [script.path, certificates.path]
        certs.standardOutput = FileHandle.nullDevice
        certs.standardError = FileHandle.nullDevice
        try certs.runWithSignalsUnblocked().waitHere()
        guard certs.terminationStatus == 0 else { throw NginxOrigin.StartError(description: "ws_tls_certs.sh failed (is openssl installed?)") }
        caFile = certificates.appendingPathComponent("ca.pem").path
        var lastError = ""
        for _ in 0..<5 {
            let ports = (try NginxOrigin.freePort(), try NginxOrigin.freePort(), try NginxOrigin.freePort())
            let token = UUID().uuidString
            let config = Self.config(prefix: prefix.path, root: root.path, certificates: certificates.path, ports: ports, token: token)
            let configURL = prefix.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: configURL)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-p", prefix.path, "-c", configURL.path]
            let output = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = output
            let end = try process.runWithSignalsUnblocked()
            let failure = NginxOrigin.waitForStart(of: process, port: ports.0, token: token, output: output.fileHandleForReading,
                                                   log: prefix.appendingPathComponent("logs/stderr.log"))
            guard let failure else {
                (plainPort, securePort, wrongHostPort) = ports
                child = OwnedChild(process, end: end)
                return
            }
            process.terminate()
            end.waitHere()
            lastError = failure.isEmpty ? "no output" : failure
        }
        throw NginxOrigin.StartError(description: "nginx did not start: \(lastError)")
    }

    deinit {
        child.stop()
        try? FileManager.default.removeItem(at: prefix)
    }

    /// Writes a file under the root.
    public func serve(_ data: Data, at path: String) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// `http://127.0.0.1:plainPort<path>`.
    public func plainURL(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(plainPort)\(path)")! }

    /// `https://<host>:securePort<path>`.
    public func secureURL(_ path: String, host: String = "127.0.0.1") -> URL { URL(string: "https://\(host):\(securePort)\(path)")! }

    /// `https://127.0.0.1:wrongHostPort<path>`.
    public func wrongHostURL(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(wrongHostPort)\(path)")! }

    /// The requests served so far for URIs starting with `prefix`, in order. A marker round
    /// trip first, as ``NginxOrigin/requests()`` does: nginx logs a request after sending its
    /// answer, and its single process finishes that before it reads the next request.
    public func requests(under uriPrefix: String) -> [Request] {
        _ = loopbackExchange(port: plainPort, "/__douyinkit-log-marker")
        guard let text = try? String(contentsOf: prefix.appendingPathComponent("logs/access.log"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 6, let port = Int(parts[0]), let connection = Int(parts[1]), let status = Int(parts[5]),
                  parts[4].hasPrefix(uriPrefix) else { return nil }
            return Request(port: port, connection: connection, serverProtocol: String(parts[2]), method: String(parts[3]),
                           uri: String(parts[4]), status: status)
        }
    }

    private static func config(prefix: String, root: String, certificates: String, ports: (Int, Int, Int), token: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        error_log \(prefix)/logs/error.log warn;
        error_log stderr notice;
        pid \(prefix)/logs/nginx.pid;
        events { worker_connections 256; }
        http {
            log_format connections '$server_port $connection $server_protocol $request_method $request_uri $status';
            access_log \(prefix)/logs/access.log connections;
            client_body_temp_path \(prefix)/body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            default_type application/octet-stream;
            keepalive_timeout 60;
            server {
                listen 127.0.0.1:\(ports.0);
                root \(root);
                location = \(NginxOrigin.probePath) { return 200 "\(token)"; }
            }
            server {
                listen 127.0.0.1:\(ports.1) ssl http2;
                ssl_certificate \(certificates)/good.pem;
                ssl_certificate_key \(certificates)/good.key;
                root \(root);
            }
            server {
                listen 127.0.0.1:\(ports.2) ssl;
                ssl_certificate \(certificates)/wronghost.pem;
                ssl_certificate_key \(certificates)/wronghost.key;
                root \(root);
            }
        }
        """
    }
}
