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
        var descriptorClosed = false
        var finished = false
        var nextPing: UInt32 = 0
        var pingWaiters: [UInt32: CheckedContinuation<Void, any Error>] = [:]
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let continuation: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let socket: POSIXSocket
    private let configuration: POSIXWebSocketTransport.Configuration
    private let state = LockedBox(State())
    private let writeLock = LockedBox(())
    /// Bytes read but not yet parsed; touched only by the reader thread.
    private var buffer: [UInt8]
    private var bufferStart = 0

    init(socket: POSIXSocket, leftover: [UInt8], configuration: POSIXWebSocketTransport.Configuration) {
        self.socket = socket
        self.configuration = configuration
        buffer = leftover
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
        try write(.text, Array(text.utf8))
    }

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

    func close(code: UInt16, reason: String) async {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing && !state.finished
        }
        if first {
            try? write(.close, WebSocketFrame.closePayload(code: code, reason: reason))
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

    private func write(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) throws {
        var generator = SystemRandomNumberGenerator()
        let key = UInt32.random(in: .min ... .max, using: &generator)
        let frame = WebSocketFrame.encode(opcode, payload: payload,
                                          mask: (UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)))
        try writeLock.withLock { _ in
            if state.withLock({ $0.descriptorClosed }) { throw ChatError.connectionLost(errno: EBADF) }
            try socket.sendAll(frame)
        }
    }

    // MARK: - Reading (reader thread only)

    private func readLoop() {
        var failure: (any Error)?
        do {
            try readFrames()
        } catch {
            failure = error
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
        var message: (opcode: WebSocketFrame.Opcode, bytes: [UInt8])?
        while true {
            let start = try read(2)
            guard let start else { return try endOfStream() }
            let parsed: (fin: Bool, opcode: WebSocketFrame.Opcode, length7: UInt8, extra: Int)
            var length: UInt64
            do {
                parsed = try WebSocketFrame.parseStart(start[0], start[1])
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
                let already = UInt64(message?.bytes.count ?? 0)
                if length > UInt64(configuration.maximumMessageSize) - min(already, UInt64(configuration.maximumMessageSize)) {
                    try? write(.close, WebSocketFrame.closePayload(code: 1009, reason: "message too big"))
                    throw ChatError.messageTooBig(size: already + length, limit: configuration.maximumMessageSize)
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
                if state.withLock({ $0.closing }) { return }
                try? write(.close, WebSocketFrame.closePayload(code: code == 1005 ? 1000 : code, reason: ""))
                throw ChatError.closed(code: code, reason: reason)
            case .text, .binary, .continuation:
                if message == nil { message = (parsed.opcode, payload) } else { message!.bytes += payload }
                if parsed.fin, let complete = message {
                    message = nil
                    if complete.opcode == .text {
                        guard WebSocketFrame.isValidUTF8(complete.bytes) else {
                            throw violation(WebSocketFrame.FrameError("text message is not valid UTF-8", closeCode: 1007))
                        }
                        continuation.yield(.text(String(decoding: complete.bytes, as: UTF8.self)))
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
        try? write(.close, WebSocketFrame.closePayload(code: error.closeCode, reason: error.reason))
        return .protocolViolation(error.reason, closeCode: error.closeCode)
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

    /// Exactly `count` bytes, or `nil` at a clean end of stream before the first of them.
    private func read(_ count: Int) throws -> [UInt8]? {
        while buffer.count - bufferStart < count {
            if bufferStart > 0 {
                buffer.removeFirst(bufferStart)
                bufferStart = 0
            }
            let want = max(64 << 10, count - buffer.count)
            let oldCount = buffer.count
            buffer.reserveCapacity(oldCount + want)
            var received = 0
            let timeout = configuration.readTimeout
            buffer.append(contentsOf: repeatElement(0, count: want))
            do {
                received = try buffer.withUnsafeMutableBytes { raw in
                    try socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: raw[oldCount...]), timeout: timeout, stage: "read")
                }
            } catch {
                buffer.removeLast(want)
                if state.withLock({ $0.closing }) { return nil }
                throw error
            }
            buffer.removeLast(want - received)
            if received == 0 {
                if buffer.count - bufferStart == 0 || state.withLock({ $0.closing }) { return nil }
                throw ChatError.connectionLost(errno: 0)
            }
        }
        let bytes = Array(buffer[bufferStart..<bufferStart + count])
        bufferStart += count
        return bytes
    }
}
