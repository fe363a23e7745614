#if canImport(CCurl)
import CCurl
import Foundation

/// One exchange on a ``CurlDriver``: its easy handle, the head being read, the body handed to
/// an ``HTTPBodyBuffer``.
///
/// Set up on the caller's thread; from ``start()`` on, the handle and the header state belong
/// to the driver's thread (libcurl calls the callbacks there). The caller's side meets the
/// driver's only in `outcome`, behind its lock.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked Sendable: `easy`, `headerList`, `upload`, `lines`, `headDelivered`, `paused`,
    // `bodyStarted`, `wakeDue` and `lastActivity` are touched by the driver's thread only once
    // the transfer is submitted (and before, only by the thread making it); `outcome` is a
    // LockedBox.

    let easy: UnsafeMutableRawPointer
    let idleTimeout: Duration
    private let request: HTTPRequest
    private let driver: CurlDriver
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var upload: CurlUpload?
    private let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private var lines = HTTPHeaders()
    private var headDelivered = false
    private(set) var isPaused = false
    private var lastActivity = ContinuousClock.now
    private var startedAt = ContinuousClock.now
    private var lastSent: Int64 = -1
    /// Whether the body's first bytes were offered: they wake the reader at once (the time to
    /// the first byte is a player's start-up), later ones once a round (``CurlDriver/wakeAfterRound(_:)``).
    private var bodyStarted = false
    /// Whether the driver is to wake the reader at the end of this round.
    private var wakeDue = false
    private let buffer: HTTPBodyBuffer

    private struct Outcome {
        var head: CheckedContinuation<HTTPResponse, any Error>?
        var cancelled = false
        var settled = false
    }

    private let outcome = LockedBox(Outcome())

    init(_ request: HTTPRequest, configuration: CurlTransport.Configuration, driver: CurlDriver) throws {
        guard let easy = curl_easy_init() else { throw URLError(.unknown) }
        self.easy = easy
        self.request = request
        self.idleTimeout = request.idleTimeout
        self.driver = driver
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // The buffer's callbacks only queue commands: they run on the reader's thread. They
        // reach the transfer weakly: a body outlives its transfer once the transfer has ended.
        let link = WeakTransfer()
        buffer = HTTPBodyBuffer(limit: request.bufferLimit, resume: { [driver] in
            if let transfer = link.transfer { driver.submit(.resume(transfer)) }
        }, cancelTransfer: { [driver] in
            if let transfer = link.transfer { driver.submit(.cancel(transfer)) }
        })
        link.transfer = self
        try configure(configuration)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorText.deallocate()
    }

    // MARK: Caller's side

    /// Hands the transfer to the driver and waits for the head; cancelling the calling task
    /// ends the transfer.
    func start() async throws -> HTTPResponse {
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = outcome.withLock { outcome -> Bool in
                    guard !outcome.cancelled else { return true }
                    outcome.head = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    driver.submit(.add(self))
                }
            }
        } onCancel: {
            cancel()
        }
        outcome.withLock { _ in }  // the edge Thread Sanitizer needs: see deliverHead(status:)
        return response
    }

    /// Whether the caller gave up before the transfer was attached.
    var isCancelled: Bool { outcome.withLock { $0.cancelled } }

    private func cancel() {
        let head = outcome.withLock { outcome -> CheckedContinuation<HTTPResponse, any Error>? in
            outcome.cancelled = true
            defer { outcome.head = nil }
            return outcome.head
        }
        head?.resume(throwing: CancellationError())
        buffer.cancel()
        driver.submit(.cancel(self))
    }

    // MARK: Driver's side

    /// The driver took the transfer: its idle limit runs from `now`, a wait for a free slot
    /// to its host included.
    func submittedAt(_ now: ContinuousClock.Instant) {
        lastActivity = now
    }

    /// The transfer goes on the multi handle at `now`: the time to its head counts from here,
    /// and what is left of its deadline is libcurl's timeout. `false` when the deadline has
    /// passed (while it waited for a slot).
    func attachedAt(_ now: ContinuousClock.Instant) -> Bool {
        startedAt = now
        guard let deadline = request.deadline else { return true }
        guard now < deadline else { return false }
        return douyin_curl_set_long(easy, CURLOPT_TIMEOUT_MS, max(1, Self.milliseconds(now.duration(to: deadline)))) == CURLE_OK
    }

    /// The request's deadline, if it has one.
    var deadline: ContinuousClock.Instant? { request.deadline }

    /// The origin the driver's per-host limit counts: scheme, host and port.
    var host: String {
        "\(request.url.scheme ?? "")://\(request.url.host ?? ""):\(request.url.port ?? -1)"
    }

    func resumed(at now: ContinuousClock.Instant) {
        isPaused = false
        lastActivity = now
    }

    /// When the transfer counts as idle: `nil` while paused (it waits for its reader).
    var idleExpiry: ContinuousClock.Instant? {
        isPaused ? nil : lastActivity + idleTimeout
    }

    /// The transfer is off the multi handle: its body ends (or its head fails) with `result`.
    func ended(with result: Result<Void, any Error>) {
        let head = outcome.withLock { outcome -> CheckedContinuation<HTTPResponse, any Error>? in
            outcome.settled = true
            defer { outcome.head = nil }
            return outcome.head
        }
        switch result {
        case .success:
            if let head {
                // A clean end without a head (never from HTTP/1.x or 2): no answer to hand over.
                head.resume(throwing: URLError(.badServerResponse))
            }
            buffer.finish(throwing: nil)
        case .failure(let error):
            head?.resume(throwing: error)
            buffer.finish(throwing: error)
        }
    }

    /// libcurl's failure as the `URLError` the package's clients know (``CurlErrors``).
    func error(for code: CURLcode) -> any Error {
        let text = String(cString: errorText)
        return CurlErrors.urlError(code, detail: text, url: request.url)
    }

    /// A header line (status line, field or the blank line ending a block).
    fileprivate func header(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        lastActivity = .now
        guard !headDelivered else { return bytes.count }  // trailers
        // The line ending goes by bytes: in a String "\r\n" is one Character, equal to
        // neither "\r" nor "\n", so trimming Characters left it on every value and the blank
        // line never read as empty (a body-less answer never got its head).
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Substring(String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            lines = HTTPHeaders()  // a new block: an interim 1xx's fields are not this answer's
        } else if line.isEmpty {
            var status = 0
            _ = douyin_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if status >= 200 { deliverHead(status: status) } else { lines = HTTPHeaders() }
        } else if let colon = line.firstIndex(of: ":") {
            // RFC 9112 §5.1: optional spaces and tabs around the value are not part of it.
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            lines.add(String(line[..<colon]), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed()))
        }
        return bytes.count
    }

    /// Body bytes: taken, or refused with a pause while the reader is behind.
    fileprivate func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let now = ContinuousClock.now
        lastActivity = now
        if !headDelivered {
            var status = 0
            _ = douyin_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
            deliverHead(status: status)
        }
        let wakingReader = !bodyStarted
        bodyStarted = true
        let offer = buffer.offer(UnsafeRawBufferPointer(bytes), at: now, wakingReader: wakingReader)
        if !wakingReader, offer != .closed, !wakeDue {
            wakeDue = true
            driver.wakeAfterRound(self)
        }
        switch offer {
        case .taken:
            return bytes.count
        case .full:
            isPaused = true
            driver.count { $0.pauses += 1 }
            return Int(CURL_WRITEFUNC_PAUSE)
        case .closed:
            return 0  // the reader is gone: libcurl ends the transfer (CURLE_WRITE_ERROR)
        }
    }

    /// The end of a round of reads: the reader gets what was offered in it.
    func wakeReader() {
        wakeDue = false
        buffer.wake()
    }

    /// Upload progress, reported when the count of bytes sent moved.
    fileprivate func progress(sent: Int64, total: Int64) {
        guard sent != lastSent, let report = request.uploadProgress else { return }
        lastSent = sent
        report(sent, total)
    }

    private func deliverHead(status: Int) {
        headDelivered = true
        let head = HTTPResponseHead(status: status, headers: lines, url: request.url, timeToHead: startedAt.duration(to: .now))
        // Made under the lock the caller takes once resumed (``start()``), so Thread Sanitizer
        // sees the hand-off, which it does not see through the continuation.
        let handOff = outcome.withLock { outcome -> (CheckedContinuation<HTTPResponse, any Error>, HTTPResponse)? in
            defer { outcome.head = nil }
            return outcome.head.map { ($0, HTTPResponse(head: head, body: HTTPBody(buffer))) }
        }
        if let (waiter, response) = handOff { waiter.resume(returning: response) }
    }

    // MARK: Set-up

    private func configure(_ configuration: CurlTransport.Configuration) throws {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var failed = CURLE_OK
        func check(_ code: CURLcode) { if code != CURLE_OK, failed == CURLE_OK { failed = code } }
        check(douyin_curl_set_string(easy, CURLOPT_URL, request.url.absoluteString))
        // Only HTTP, on requests and (were libcurl to follow any) redirects.
        check(douyin_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(douyin_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        check(douyin_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))  // followed above the seam
        check(douyin_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        // Reads of up to this many bytes per `recv`, not libcurl's 16 KB: a fast body then
        // costs an eighth of the calls, wake-ups and handovers (the curl tool reads 100 KB).
        // The buffer is allocated per transfer but only the pages a read fills become resident.
        // Not when libcurl decodes: a paused transfer keeps all one read decodes to, and a
        // 128 KB read of a compression bomb decodes past libcurl's own cap (an out-of-memory
        // failure instead of the body limit's typed one; 16 KB stays under it).
        if !request.decodesContent {
            check(douyin_curl_set_long(easy, CURLOPT_BUFFERSIZE, CurlTransport.receiveBufferSize))
        }
        if request.uploadProgress != nil, request.body != nil {
            check(douyin_curl_set_long(easy, CURLOPT_NOPROGRESS, 0))
            check(douyin_curl_set_xferinfo_function(easy, curlProgress))
            check(douyin_curl_set_pointer(easy, CURLOPT_XFERINFODATA, me))
        } else {
            check(douyin_curl_set_long(easy, CURLOPT_NOPROGRESS, 1))
        }
        check(douyin_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorText))
        // Asked for: every encoding libcurl decodes; otherwise `identity`. libcurl undoes a
        // Content-Encoding the origin sent anyway, and the clients count decoded bytes.
        check(douyin_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, request.decodesContent ? "" : "identity"))
        check(douyin_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.idleTimeout)))
        if let caFile = configuration.caFile {
            check(douyin_curl_set_string(easy, CURLOPT_CAINFO, caFile))
            check(douyin_curl_set_string(easy, CURLOPT_CAPATH, nil))
        }
        check(douyin_curl_set_write_function(easy, CURLOPT_WRITEFUNCTION, curlWrite))
        check(douyin_curl_set_pointer(easy, CURLOPT_WRITEDATA, me))
        check(douyin_curl_set_write_function(easy, CURLOPT_HEADERFUNCTION, curlHeader))
        check(douyin_curl_set_pointer(easy, CURLOPT_HEADERDATA, me))
        try configureMethodAndBody(check)
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers where !name.isEmpty {
            // "Name;" is libcurl's spelling of a field with an empty value.
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before a body.
        list = curl_slist_append(list, "Expect:")
        headerList = list
        check(douyin_curl_set_slist(easy, CURLOPT_HTTPHEADER, list))
        if failed != CURLE_OK { throw CurlErrors.urlError(failed, detail: "setting up the request", url: request.url) }
    }

    private func configureMethodAndBody(_ check: (CURLcode) -> Void) throws {
        let method = request.method.uppercased()
        if let body = request.body {
            let upload = try CurlUpload(body)
            self.upload = upload
            check(douyin_curl_set_long(easy, CURLOPT_POST, 1))
            check(douyin_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(upload.length)))
            check(douyin_curl_set_read_function(easy, curlRead))
            check(douyin_curl_set_pointer(easy, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque()))
            check(douyin_curl_set_seek_function(easy, curlSeek))
            check(douyin_curl_set_pointer(easy, CURLOPT_SEEKDATA, Unmanaged.passUnretained(upload).toOpaque()))
            if method != "POST" { check(douyin_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        } else if method == "HEAD" {
            check(douyin_curl_set_long(easy, CURLOPT_NOBODY, 1))
        } else if method != "GET" {
            check(douyin_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, method))
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? Int.max : Int(clamping: product + attoseconds / 1_000_000_000_000_000)
    }
}

// libcurl's callbacks, on the driver's thread; `userdata` is the unretained transfer (the driver
// holds it while attached) or upload (the transfer holds it).

private let curlWrite: curl_write_callback = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.write(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: size * count))
}

private let curlHeader: curl_write_callback = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.header(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: size * count))
}

private let curlProgress: curl_xferinfo_callback = { userdata, _, _, total, sent in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    transfer.progress(sent: Int64(sent), total: Int64(total))
    return 0
}

private let curlRead: curl_read_callback = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return Int(CURL_READFUNC_ABORT) }
    let upload = Unmanaged<CurlUpload>.fromOpaque(userdata).takeUnretainedValue()
    return upload.read(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let curlSeek: curl_seek_callback = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let upload = Unmanaged<CurlUpload>.fromOpaque(userdata).takeUnretainedValue()
    return upload.seek(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}

/// The buffer's way back to its transfer.
private final class WeakTransfer: @unchecked Sendable {
    // @unchecked Sendable: `transfer` is set once, in the transfer's init, before the buffer
    // can call back; weak loads are atomic.
    weak var transfer: CurlTransfer?
}

/// A request body read by libcurl as it goes out, and from the start again when a redirect or
/// a retried connection sends it once more.
final class CurlUpload {
    private let source: HTTPRequest.Body
    private let file: FileHandle?
    /// The body's length in bytes.
    let length: Int64
    private var offset: Int64 = 0

    init(_ body: HTTPRequest.Body) throws {
        source = body
        switch body {
        case .data(let data):
            file = nil
            length = Int64(data.count)
        case .file(let url):
            // The seam's errors are URLErrors (URLSession's upload task says `fileDoesNotExist`
            // too); FileManager's and FileHandle's are CocoaErrors. The type is checked before
            // the open: opening a FIFO for reading would block until a writer came.
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? NSNumber else {
                    throw URLError(.fileIsDirectory, userInfo: [NSLocalizedDescriptionKey: "\(url.path) is not a regular file"])
                }
                file = try FileHandle(forReadingFrom: url)
                length = size.int64Value
            } catch let error as URLError {
                throw error
            } catch {
                let missing = (error as? CocoaError)?.code == .fileReadNoSuchFile || (error as? CocoaError)?.code == .fileNoSuchFile
                throw URLError(missing ? .fileDoesNotExist : .cannotOpenFile,
                               userInfo: [NSLocalizedDescriptionKey: "\(url.path): \(error.localizedDescription)", NSUnderlyingErrorKey: error])
            }
        }
    }

    deinit {
        try? file?.close()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let wanted = Int(min(Int64(buffer.count), length - offset))
        guard wanted > 0 else { return 0 }
        switch source {
        case .data(let data):
            let start = data.startIndex + Int(offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + wanted))
            offset += Int64(wanted)
            return wanted
        case .file:
            guard let chunk = try? file?.read(upToCount: wanted), !chunk.isEmpty else { return Int(CURL_READFUNC_ABORT) }
            _ = chunk.copyBytes(to: buffer.bindMemory(to: UInt8.self))
            offset += Int64(chunk.count)
            return chunk.count
        }
    }

    func seek(to target: Int64) -> Bool {
        guard target >= 0, target <= length else { return false }
        if let file {
            guard (try? file.seek(toOffset: UInt64(target))) != nil else { return false }
        }
        offset = target
        return true
    }
}
#endif
