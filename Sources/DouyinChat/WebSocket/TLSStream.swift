#if canImport(COpenSSL)
import COpenSSL
import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// TLS over a connected ``DouyinSupport/POSIXSocket`` through OpenSSL (Linux): TLS 1.2 or
/// later, SNI, the certificate chain verified against the system trust store or the given PEM
/// certificates, and the host name (or IP address) checked against the certificate.
///
/// The socket runs non-blocking: every OpenSSL call is made under one lock and waits happen in
/// `poll` outside it, so the reader thread and a writer never block each other.
final class TLSStream: ByteStream, @unchecked Sendable {
    // @unchecked: `ssl` and `context` are only touched under `lock` (and freed once, by
    // `closeDescriptor()`, after the reader stopped); `socket` is thread-safe.
    private let socket: POSIXSocket
    private let ssl: OpaquePointer
    private let context: OpaquePointer
    private let lock = NSLock()
    private let writeTimeout: Duration
    /// Set (under `lock`) once `ssl` is freed: a writer still looping then stops instead of
    /// touching freed memory.
    private var freed = false

    private init(socket: POSIXSocket, ssl: OpaquePointer, context: OpaquePointer, writeTimeout: Duration) {
        self.socket = socket
        self.ssl = ssl
        self.context = context
        self.writeTimeout = writeTimeout
    }

    /// A write to a peer that went away raises SIGPIPE inside OpenSSL's `write`; ignored once
    /// for the process (the failed write then reports EPIPE).
    private static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Performs the TLS handshake with `host` on `socket` within `timeout`. A certificate that
    /// does not verify throws ``ChatError/certificateRejected(host:reason:)`` before any
    /// application byte is sent; other handshake failures ``ChatError/tlsFailed(_:)``.
    static func connect(socket: POSIXSocket, host: String, trustedPEM: Data?, timeout: Duration, writeTimeout: Duration) throws -> TLSStream {
        _ = ignoreBrokenPipe
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw ChatError.tlsFailed(Self.lastError("SSL_CTX_new")) }
        guard douyin_ssl_ctx_set_min_tls12(context) == 1 else {
            SSL_CTX_free(context)
            throw ChatError.tlsFailed(Self.lastError("TLS 1.2 minimum"))
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let trustedPEM {
            let added = trustedPEM.withUnsafeBytes { douyin_ssl_ctx_add_pem(context, $0.baseAddress, Int32(clamping: $0.count)) }
            guard added > 0 else {
                SSL_CTX_free(context)
                throw ChatError.certificateRejected(host: host, reason: "the trusted certificates hold no PEM certificate")
            }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            SSL_CTX_free(context)
            throw ChatError.tlsFailed(Self.lastError("the system trust store"))
        }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw ChatError.tlsFailed(Self.lastError("SSL_new"))
        }
        let stream = TLSStream(socket: socket, ssl: ssl, context: context, writeTimeout: writeTimeout)
        do {
            try stream.handshake(host: host, timeout: timeout)
        } catch {
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw error
        }
        return stream
    }

    private func handshake(host: String, timeout: Duration) throws {
        let flags = fcntl(socket.fd, F_GETFL)
        _ = fcntl(socket.fd, F_SETFL, flags | O_NONBLOCK)
        SSL_set_fd(ssl, socket.fd)
        douyin_ssl_set_nonblocking_modes(ssl)
        if Self.isAddressLiteral(host) {
            // An address is checked against the certificate's IP entries; SNI carries names only.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw ChatError.tlsFailed("cannot check address \(host)") }
        } else {
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard SSL_set1_host(ssl, host) == 1, douyin_ssl_set_sni(ssl, host) == 1 else { throw ChatError.tlsFailed(Self.lastError("host name \(host)")) }
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { return }
            let error = SSL_get_error(ssl, result)
            let remaining = deadline - ContinuousClock.now
            switch error {
            case SSL_ERROR_WANT_READ: try wait(for: Int16(POLLIN), timeout: remaining, stage: "tls handshake")
            case SSL_ERROR_WANT_WRITE: try wait(for: Int16(POLLOUT), timeout: remaining, stage: "tls handshake")
            default:
                let verify = SSL_get_verify_result(ssl)
                if verify != Int(X509_V_OK) {
                    throw ChatError.certificateRejected(host: host, reason: String(cString: X509_verify_cert_error_string(verify)))
                }
                throw ChatError.tlsFailed(Self.lastError("handshake"))
            }
        }
    }

    // MARK: - ByteStream

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?, stage: String) throws -> Int {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            guard case let (count, error, code)? = locked({
                let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
                return (count, count > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, count), errno)
            }) else { return 0 }
            if count > 0 { return Int(count) }
            switch error {
            case SSL_ERROR_ZERO_RETURN: return 0
            case SSL_ERROR_WANT_READ: try wait(for: Int16(POLLIN), timeout: deadline.map { $0 - ContinuousClock.now }, stage: stage)
            case SSL_ERROR_WANT_WRITE: try wait(for: Int16(POLLOUT), timeout: deadline.map { $0 - ContinuousClock.now }, stage: stage)
            case SSL_ERROR_SYSCALL where code != 0 && code != EAGAIN: throw ClientSocketError.connectionLost(errno: code)
            // A peer that drops TCP without close_notify (OpenSSL 3: "unexpected eof"), or a
            // shutdown of our own: the end of the stream, as for plain TCP.
            default: return 0
            }
        }
    }

    func sendAll(_ bytes: [UInt8]) throws {
        var offset = 0
        let deadline = ContinuousClock.now + writeTimeout
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                locked {
                    let count = SSL_write(ssl, raw.baseAddress! + offset, Int32(clamping: raw.count - offset))
                    return (count, count > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, count), errno)
                }
            }
            guard case let (count, error, code)? = result else { throw ClientSocketError.connectionLost(errno: EBADF) }
            if count > 0 {
                offset += Int(count)
                continue
            }
            switch error {
            case SSL_ERROR_WANT_WRITE: try wait(for: Int16(POLLOUT), timeout: deadline - ContinuousClock.now, stage: "write")
            case SSL_ERROR_WANT_READ: try wait(for: Int16(POLLIN), timeout: deadline - ContinuousClock.now, stage: "write")
            default: throw ClientSocketError.connectionLost(errno: code != 0 ? code : EPIPE)
            }
        }
    }

    func shutdownBoth() { socket.shutdownBoth() }

    func closeDescriptor() {
        lock.withLock {
            guard !freed else { return }
            freed = true
            SSL_free(ssl)
            SSL_CTX_free(context)
        }
        socket.closeDescriptor()
    }

    // MARK: - Helpers

    /// `body` under the lock, with OpenSSL's error queue cleared first (SSL_get_error reads
    /// it); `nil` once the TLS state is freed.
    private func locked<T>(_ body: () -> T) -> T? {
        lock.withLock {
            guard !freed else { return nil }
            ERR_clear_error()
            return body()
        }
    }

    /// Waits until the socket is ready for `events`; `nil` timeout waits forever.
    private func wait(for events: Int16, timeout: Duration?, stage: String) throws {
        if let timeout, timeout <= .zero { throw ClientSocketError.timedOut(stage: stage) }
        var descriptor = pollfd(fd: socket.fd, events: events, revents: 0)
        while true {
            let ready = poll(&descriptor, 1, timeout.map { Int32(clamping: POSIXSocket.milliseconds($0)) } ?? -1)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { throw ClientSocketError.timedOut(stage: stage) }
            return
        }
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// OpenSSL's newest error for `step`, as one line.
    private static func lastError(_ step: String) -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "\(step) failed" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return "\(step): \(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
    }
}
#endif
