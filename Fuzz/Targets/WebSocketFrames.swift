// DouyinChat's WebSocket reader (POSIXWebSocketConnection over its ReceiveBuffer), fed a
// server's bytes through a scripted stream. Properties: the messages, the end and the frames
// the client sends back (pongs, the close code) do not depend on how the bytes were split into
// reads (one read, one byte a read, the input's own split); and they equal a reference
// written from RFC 6455 §5 and §7: a violation ends in the close code the RFC names (1002,
// 1007 for bad UTF-8, 1009 past the message limit).
//
// Input: byte 0 is the size of each read in the third pass (1-256); the rest is the stream.
@testable import DouyinChat
import DouyinSupport
import Foundation

/// Small, so the limit is reached by inputs of a few hundred bytes.
private let limit = 300

@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFramesFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let input = bytes(data, count)
    let stream = Array(input.dropFirst())
    let whole = WebSocketRun(stream, readSize: max(1, stream.count)).outcome()
    let bytewise = WebSocketRun(stream, readSize: 1).outcome()
    let chosen = WebSocketRun(stream, readSize: Int(input[0]) + 1).outcome()
    require(whole == bytewise && whole == chosen, "one read: \(whole)\none byte a read: \(bytewise)\n\(Int(input[0]) + 1) bytes a read: \(chosen)")
    let expected = reference(stream)
    require(whole == expected, "connection: \(whole)\nRFC 6455 reference: \(expected)")
    return 0
}

/// What a connection did with a stream: messages, how it ended, what it sent.
struct Outcome: Equatable, CustomStringConvertible {
    var messages: [String] = []
    var end = ""
    var sent: [String] = []
    var description: String { "messages \(messages), end \(end), sent \(sent)" }
}

/// A server's bytes handed out `readSize` at a time; what the client writes is kept.
final class WebSocketRun: ByteStream, @unchecked Sendable {
    // @unchecked: every mutable field is behind `lock`.
    private let input: [UInt8]
    private let readSize: Int
    private let lock = NSLock()
    private var position = 0
    private var shut = false
    private var written: [[UInt8]] = []

    init(_ input: [UInt8], readSize: Int) {
        self.input = input
        self.readSize = readSize
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?, stage: String) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        if shut { return 0 }
        let count = min(readSize, buffer.count, input.count - position)
        for index in 0..<count { buffer[index] = input[position + index] }
        position += count
        return count
    }

    func sendAll(_ bytes: [UInt8]) throws {
        lock.withLock { written.append(bytes) }
    }

    func shutdownBoth() { lock.withLock { shut = true } }
    func closeDescriptor() {}

    /// Runs a connection over the stream to its end.
    func outcome() -> Outcome {
        let configuration = POSIXWebSocketTransport.Configuration(maximumMessageSize: limit)
        let connection = POSIXWebSocketConnection(socket: self, leftover: [], configuration: configuration)
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox(Outcome())
        Task {
            do {
                for try await message in connection.messages { result.withLock { $0.messages.append(describe(message)) } }
                result.withLock { $0.end = "finished" }
            } catch {
                result.withLock { $0.end = describe(error) }
            }
            done.signal()
        }
        done.wait()
        // The reader thread lets the connection go just after the stream ends: wait for that,
        // so LeakSanitizer's check after this input does not race the thread's exit.
        weak let gone = connection
        _ = consume connection
        while gone != nil { sched_yield() }
        var outcome = result.withLock { $0 }
        outcome.sent = lock.withLock { written }.map(unmasked)
        return outcome
    }
}

private func describe(_ message: WebSocketMessage) -> String {
    switch message {
    case .text(let text): "text \(Array(text.utf8))"
    case .binary(let data): "binary \(Array(data))"
    }
}

private func describe(_ error: any Error) -> String {
    switch error as? ChatError {
    case .protocolViolation(_, let code)?: "fail \(code.code)"
    case .messageTooBig?: "fail 1009"
    case .closed(let code, let reason)?: "closed \(code.code) \(Array(reason.utf8))"
    case .connectionLost?: "lost"
    default: "other \(error)"
    }
}

/// A client frame as "opcode payload" (the close code only, for a close: its reason is prose).
private func unmasked(_ frame: [UInt8]) -> String {
    guard frame.count >= 2 else { return "short frame" }
    var offset = 2
    var length = Int(frame[1] & 0x7F)
    if length == 126 { length = Int(frame[2]) << 8 | Int(frame[3]); offset = 4 }
    if length == 127 { length = frame[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10 }
    let key = Array(frame[offset..<(offset + 4)])
    let payload = frame[(offset + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
    require(payload.count == length, "a client frame's length \(length) for \(payload.count) bytes")
    let opcode = frame[0] & 0x0F
    return opcode == 8 ? "close \(payload.prefix(2))" : "\(opcode) \(payload)"
}

// MARK: - The reference: RFC 6455 §5.2-§5.6 and §7.4 for a client, without extensions

private func reference(_ stream: [UInt8]) -> Outcome {
    var outcome = Outcome()
    var position = 0
    var message: (text: Bool, bytes: [UInt8])?
    func fail(_ code: UInt16) -> Outcome {
        outcome.end = "fail \(code)"
        outcome.sent.append("close \([UInt8(code >> 8), UInt8(code & 0xFF)][...])")
        return outcome
    }
    /// The next `count` bytes, or nil when the stream ends first.
    func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard stream.count - position >= count else { return nil }
        defer { position += count }
        return stream[position..<(position + count)]
    }
    while true {
        guard let head = take(2) else { outcome.end = "lost"; return outcome }
        let (first, second) = (head[head.startIndex], head[head.startIndex + 1])
        let fin = first & 0x80 != 0, opcode = first & 0x0F
        let control = opcode >= 8
        guard first & 0x70 == 0, [0, 1, 2, 8, 9, 10].contains(opcode), second & 0x80 == 0,
              !control || (fin && second & 0x7F <= 125) else { return fail(1002) }
        var length = UInt64(second & 0x7F)
        if length >= 126 {
            guard let extended = take(length == 126 ? 2 : 8) else { outcome.end = "lost"; return outcome }
            let value = extended.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            // The minimal encoding only (§5.2), and a 64-bit length's top bit clear.
            guard extended.count == 2 ? value >= 126 : value >= 65536 && value >> 63 == 0 else { return fail(1002) }
            length = value
        }
        if opcode == 0 && message == nil { return fail(1002) }
        if (opcode == 1 || opcode == 2) && message != nil { return fail(1002) }
        if !control && UInt64(message?.bytes.count ?? 0) + length > UInt64(limit) { return fail(1009) }
        guard let payload = take(Int(length)) else { outcome.end = "lost"; return outcome }
        switch opcode {
        case 9: outcome.sent.append("10 \(Array(payload))")
        case 10: break
        case 8:
            guard payload.count != 1 else { return fail(1002) }
            let code = payload.count >= 2 ? UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1]) : 1005
            guard code == 1005 && payload.isEmpty || (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
            else { return fail(1002) }
            let reason = payload.dropFirst(2)
            guard String(validating: reason, as: UTF8.self) != nil else { return fail(1007) }
            outcome.sent.append("close \(code == 1005 ? [3, 232][...] : payload.prefix(2))")
            outcome.end = "closed \(code) \(Array(reason))"
            return outcome
        default:
            if message == nil { message = (opcode == 1, []) }
            message!.bytes += payload
            if fin {
                if message!.text {
                    guard String(validating: message!.bytes, as: UTF8.self) != nil else { return fail(1007) }
                    outcome.messages.append("text \(message!.bytes)")
                } else {
                    outcome.messages.append("binary \(message!.bytes)")
                }
                message = nil
            }
        }
    }
}
