import DouyinSupport
import Foundation

/// One connection of ``POSIXWebSocketTransport``: a reader thread parses frames and feeds
/// ``messages``; writes go out under one lock so frames never interleave.
final class POSIXWebSocketConnection: WebSocketConnection, @unchecked Sendable {
    // @unchecked: the socket is closed once by the reader thread, under `state`'s lock so a
    // late `shutdown` never reaches a reused descriptor; writes are serialised by `writeLock`;
    // everything else mutable lives in `state`.
    private struct State {
        var closing = false
        /// Both close frames went across (whoever sent the first), or this side failed the
        /// connection and its close frame went out.
        var closeHandshakeDone = false
        var descriptorClosed = false
        var finished = false
        var nextPing: UInt32 = 0
        var pingWaiters: [UInt32: CheckedContinuation<Void, any Error>] = [:]
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let continuation: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let socket: any ByteStream
    private let configuration: POSIXWebSocketTransport.Configuration
    private let state = LockedBox(State())
    /// Serialises writes; holds the count of frames written. Not a `LockedBox<Void>`: Thread
    /// Sanitizer reported the zero-sized value's inout access in two threads' writes as a race.
    private let writeLock = LockedBox(UInt64(0))
    private let compression: MessageCompression
    /// Bytes read but not yet parsed; touched only by the reader thread.
    private var buffer: ReceiveBuffer

    init(socket: any ByteStream, leftover: [UInt8], configuration: POSIXWebSocketTransport.Configuration, deflate: DeflateNegotiation? = nil) {
        self.socket = socket
        compression = MessageCompression(deflate)
        self.configuration = configuration
        buffer = ReceiveBuffer(leftover: leftover)
        (messages, continuation) = AsyncThrowingStream.makeStream(of: WebSocketMessage.self)
        continuation.onTermination = { [weak self] termination in
            // The consumer stopped listening: drop the connection rather than read for nobody.
            if case .cancelled = termination { self?.abort() }
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "DouyinChat.reader"
        thread.start()
    }

    // MARK: - WebSocketConnection

    func send(text: String) async throws {
        try write(.text, Array(text.utf8), message: true)
    }

    func send(_ message: WebSocketMessage) async throws {
        switch message {
        case .text(let text): try write(.text, Array(text.utf8), message: true)
        case .binary(let data): try write(.binary, Array(data), message: true)
        }
    }

    /// Whether the connection ended as RFC 6455 says: a close frame went each way, whoever sent
    /// the first, or this side failed the connection of a peer that broke the protocol (§7.1.7:
    /// its close frame sent, then TCP closed at once, with no close awaited).
    var closingHandshakeCompleted: Bool { state.withLock { $0.closeHandshakeDone } }

    func ping() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let id = state.withLock { state -> UInt32? in
                guard !state.finished, !state.closing else { return nil }
                state.nextPing &+= 1
                state.pingWaiters[state.nextPing] = waiter
                return state.nextPing
            }
            guard let id else { return waiter.resume(throwing: ChatError.connectionLost(errno: 0)) }
            do {
                try write(.ping, [UInt8(id >> 24), UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)])
            } catch {
                state.withLock { $0.pingWaiters.removeValue(forKey: id) }?.resume(throwing: error)
            }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing && !state.finished
        }
        if first {
            try? write(.close, WebSocketFrame.closePayload(code: code.code, reason: reason))
            // The reader waits for the server's close frame; past the close timeout, drop it.
            let timeout = configuration.closeTimeout
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(POSIXSocket.milliseconds(timeout)))) { [weak self] in
                self?.abort()
            }
        }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.descriptorClosed { return true }
                state.closeWaiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }

    /// Drops the connection at once (no closing handshake): wakes the reader, which ends.
    func abort() {
        state.withLock { state in
            state.closing = true
            if !state.descriptorClosed { socket.shutdownBoth() }
        }
    }

    // MARK: - Writing

    /// Sends one frame; a data `message` is compressed first when permessage-deflate was
    /// negotiated (under the write lock: the compressor is one stream).
    private func write(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8], message: Bool = false) throws {
        var generator = SystemRandomNumberGenerator()
        let key = UInt32.random(in: .min ... .max, using: &generator)
        let mask = (UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF))
        try writeLock.withLock { framesWritten in
            if state.withLock({ $0.descriptorClosed }) { throw ChatError.connectionLost(errno: EBADF) }
            let (body, compressed) = message ? compression.outgoing(payload) : (payload: payload, compressed: false)
            let frame = WebSocketFrame.encode(opcode, payload: body, compressed: compressed, mask: mask)
            do { try socket.sendAll(frame) } catch { throw ChatError.from(error) }
            framesWritten += 1
        }
    }

    // MARK: - Reading (reader thread only)

    private func readLoop() {
        var failure: (any Error)?
        do {
            try readFrames()
        } catch {
            failure = ChatError.from(error)
        }
        let (pings, closers) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], [CheckedContinuation<Void, Never>]) in
            state.finished = true
            state.descriptorClosed = true
            socket.shutdownBoth()
            socket.closeDescriptor()
            defer {
                state.pingWaiters = [:]
                state.closeWaiters = []
            }
            return (Array(state.pingWaiters.values), state.closeWaiters)
        }
        for ping in pings { ping.resume(throwing: failure ?? ChatError.connectionLost(errno: 0)) }
        if let failure { continuation.finish(throwing: failure) } else { continuation.finish() }
        for closer in closers { closer.resume() }
    }

    /// Reads frames until the connection ends. Returns normally after a closing handshake this
    /// side started; throws otherwise.
    private func readFrames() throws {
        // `wire`: bytes received for the message (compressed or not), bounded before reading.
        var message: (opcode: WebSocketFrame.Opcode, bytes: [UInt8], compressed: Bool, wire: Int)?
        let limit = configuration.maximumMessageSize
        while true {
            let start = try read(2)
            guard let start else { return try endOfStream() }
            let parsed: (fin: Bool, opcode: WebSocketFrame.Opcode, length7: UInt8, extra: Int, compressed: Bool)
            var length: UInt64
            do {
                parsed = try WebSocketFrame.parseStart(start[0], start[1], compression: compression.inflates)
                length = UInt64(parsed.length7)
                if parsed.extra > 0 {
                    guard let extended = try read(parsed.extra) else { return try endOfStream() }
                    length = try WebSocketFrame.extendedLength(extended)
                }
                if parsed.opcode == .continuation, message == nil { throw WebSocketFrame.FrameError("continuation frame without a message to continue") }
                if parsed.opcode == .text || parsed.opcode == .binary, message != nil { throw WebSocketFrame.FrameError("new message before the fragmented one finished") }
            } catch let error as WebSocketFrame.FrameError {
                throw violation(error)
            }
            if !parsed.opcode.isControl {
                let already = UInt64(message?.wire ?? 0)
                if length > UInt64(limit) - min(already, UInt64(limit)) {
                    failConnection(code: 1009, reason: "message too big")
                    throw ChatError.messageTooBig(size: already + length, limit: limit)
                }
            }
            guard let payload = try read(Int(length)) else { return try endOfStream() }
            switch parsed.opcode {
            case .ping:
                if !state.withLock({ $0.closing }) { try? write(.pong, payload) }
            case .pong:
                resolvePings(payload)
            case .close:
                let (code, reason): (UInt16, String)
                do { (code, reason) = try WebSocketFrame.parseClose(payload) } catch { throw violation(error) }
                let weStarted = state.withLock { state -> Bool in
                    defer { state.closing = true; state.closeHandshakeDone = true }
                    return state.closing
                }
                if !weStarted { try? write(.close, WebSocketFrame.closePayload(code: code == 1005 ? 1000 : code, reason: "")) }
                // §7.1.1: the server closes the TCP connection first; the client waits for that.
                _ = drainUntilEndOfStream()
                if weStarted { return }
                throw ChatError.closed(code: WebSocketCloseCode(code), reason: reason)
            case .text, .binary, .continuation:
                if message == nil { message = (parsed.opcode, [], parsed.compressed, 0) }
                message!.wire += payload.count
                if message!.compressed {
                    do {
                        try compression.inflate(payload, last: parsed.fin, limit: limit, into: &message!.bytes)
                    } catch InflateFailure.tooBig(let inflated) {
                        failConnection(code: 1009, reason: "message too big")
                        throw ChatError.messageTooBig(size: UInt64(inflated), limit: limit)
                    } catch InflateFailure.corrupt(let why) {
                        throw violation(WebSocketFrame.FrameError("compressed message does not inflate: \(why)", closeCode: 1007))
                    }
                } else {
                    message!.bytes += payload
                }
                if parsed.fin, let complete = message {
                    message = nil
                    if complete.opcode == .text {
                        guard let text = complete.bytes.withUnsafeBufferPointer(WebSocketFrame.text(of:)) else {
                            throw violation(WebSocketFrame.FrameError("text message is not valid UTF-8", closeCode: 1007))
                        }
                        continuation.yield(.text(text))
                    } else {
                        continuation.yield(.binary(Data(complete.bytes)))
                    }
                }
            }
        }
    }

    private func endOfStream() throws {
        if state.withLock({ $0.closing }) { return }
        throw ChatError.connectionLost(errno: 0)
    }

    private func violation(_ error: WebSocketFrame.FrameError) -> ChatError {
        failConnection(code: error.closeCode, reason: error.reason)
        return .protocolViolation(error.reason, closeCode: WebSocketCloseCode(error.closeCode))
    }

    /// §7.1.7 "fail the WebSocket connection": send a close with `code`, then close the TCP
    /// connection at once (the caller throws, and the reader closes the socket). No wait for the
    /// peer's close as in a normal closing handshake (§7.1.1): after a violation the peer's
    /// bytes may be out of step, and a peer that broke the protocol may never close. Counts as
    /// ending the connection as the protocol says (``closingHandshakeCompleted``) once the close
    /// frame went out.
    private func failConnection(code: UInt16, reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        guard first else { return }
        do {
            try write(.close, WebSocketFrame.closePayload(code: code, reason: reason))
            state.withLock { $0.closeHandshakeDone = true }
        } catch {
            // The close frame could not be sent: the connection just ends.
        }
    }

    /// Discards what arrives until the peer ends the connection (`true`: an end of stream, or a
    /// reset when it closed with our last bytes unread) or the close timeout passes (`false`):
    /// the client's half of a normal closing handshake, where the server closes TCP first.
    private func drainUntilEndOfStream() -> Bool {
        buffer.removeAll()
        let deadline = ContinuousClock.now + configuration.closeTimeout
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            do {
                if try scratch.withUnsafeMutableBytes({ try socket.receive(into: $0, timeout: remaining, stage: "close") }) == 0 { return true }
            } catch ClientSocketError.timedOut {
                return false
            } catch {
                return true
            }
        }
    }

    private func resolvePings(_ payload: [UInt8]) {
        guard payload.count == 4 else { return }
        let id = payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // A pong answers its ping and every earlier one (RFC 6455 §5.5.3 allows answering only
        // the latest).
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            let due = state.pingWaiters.keys.filter { $0 <= id }
            return due.compactMap { state.pingWaiters.removeValue(forKey: $0) }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Exactly `count` bytes, or `nil` at a clean end of stream before the first of them;
    /// each wait bounded by `timeout` (the configured read timeout unless given).
    private func read(_ count: Int, timeout: Duration? = nil) throws -> [UInt8]? {
        let timeout = timeout ?? configuration.readTimeout
        while buffer.unread < count {
            let received: Int
            do {
                received = try buffer.fill(toHold: count) { room in try socket.receive(into: room, timeout: timeout, stage: "read") }
            } catch {
                if state.withLock({ $0.closing }) { return nil }
                throw error
            }
            if received == 0 {
                if buffer.unread == 0 || state.withLock({ $0.closing }) { return nil }
                throw ChatError.connectionLost(errno: 0)
            }
        }
        return buffer.take(count)
    }
}
