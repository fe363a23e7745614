// permessage-deflate's inflater (DouyinChat's MessageInflater), fed a server's compressed
// frames. Properties: a message's output never passes the limit; a message the reference (zlib
// run over the whole message at once) inflates within the limit comes out byte for byte, also
// when its frames are split differently; a bomb ends in InflateFailure.tooBig (the reference
// passed the limit too), corrupt data in InflateFailure.corrupt (the reference failed too).
//
// Input: byte 0 bit 0: the server resets its context after each message; then frames, each a
// byte (bit 7: the message's last frame; bits 0-6: the payload's length) and its payload.
@testable import DouyinChat
import CZlib
import Foundation

/// Small, so a few hundred input bytes can pass it (deflate expands up to ~1000 times).
private let limit = 4096

@_cdecl("LLVMFuzzerTestOneInput")
public func messageInflateFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let input = bytes(data, count)
    let reset = input[0] & 1 != 0
    var frames: [(payload: [UInt8], last: Bool)] = []
    var position = 1
    while position < input.count {
        let header = input[position]
        let length = min(Int(header & 0x7F), input.count - position - 1)
        frames.append((Array(input[(position + 1)..<(position + 1 + length)]), header & 0x80 != 0))
        position += 1 + length
    }
    // Messages: frames up to one marked last (an unfinished one at the end is still inflated).
    var messages: [[[UInt8]]] = [[]]
    for frame in frames {
        messages[messages.count - 1].append(frame.payload)
        if frame.last { messages.append([]) }
    }
    let finished = frames.last?.last ?? true
    if finished { messages.removeLast() }

    let asSent = inflated(messages, finished: finished, reset: reset, whole: false)
    let joined = inflated(messages, finished: finished, reset: reset, whole: true)
    let expected = reference(messages, finished: finished, reset: reset)
    for (index, result) in asSent.enumerated() {
        // Both fail or both inflate the same (which failure may depend on where frames end).
        require(result == joined[index] || (!result.isInflated && !joined[index].isInflated),
                "message \(index): frames as sent \(result), one frame \(joined[index])")
        let want = expected[index]
        switch result {
        case .inflated(let bytes):
            require(bytes.count <= limit && want == .inflated(bytes), "message \(index): \(bytes.count) bytes inflated, reference \(want)")
        case .tooBig(let output):
            require(output <= limit, "message \(index): \(output) bytes kept past the limit")
            require(want == .tooBig(0), "message \(index): refused as too big, reference \(want)")
        case .corrupt:
            require(want == .corrupt || want == .tooBig(0), "message \(index): refused as corrupt, reference \(want)")
        }
        if case .corrupt = result { break }  // the connection ends at the first failure
        if case .tooBig = result { break }
    }
    return 0
}

private enum Result: Equatable {
    case inflated([UInt8])
    /// The output kept when it stopped (the reference's is always 0).
    case tooBig(Int)
    case corrupt

    var isInflated: Bool { if case .inflated = self { true } else { false } }

    static func == (lhs: Result, rhs: Result) -> Bool {
        switch (lhs, rhs) {
        case (.inflated(let a), .inflated(let b)): a == b
        case (.tooBig, .tooBig), (.corrupt, .corrupt): true
        default: false
        }
    }
}

/// Each message through one MessageInflater, its frames as given or joined into one.
private func inflated(_ messages: [[[UInt8]]], finished: Bool, reset: Bool, whole: Bool) -> [Result] {
    guard let inflater = MessageInflater(resetAfterMessage: reset) else { return [] }
    var results: [Result] = []
    for (index, frames) in messages.enumerated() {
        let last = finished || index < messages.count - 1
        let pieces = whole ? [frames.flatMap { $0 }] : frames
        var output: [UInt8] = []
        var result = Result.inflated([])
        do {
            for (number, piece) in pieces.enumerated() {
                try inflater.inflate(piece, last: last && number == pieces.count - 1, limit: limit, into: &output)
                require(output.count <= limit, "output \(output.count) past the limit")
            }
            result = .inflated(output)
        } catch .tooBig {
            result = .tooBig(output.count)
        } catch {
            result = .corrupt
        }
        results.append(result)
        if result != .inflated(output) { break }
    }
    return results
}

/// zlib's raw inflate over each whole message (its frames joined, the 00 00 FF FF tail of
/// RFC 7692 §7.2.2 added when it ended), one stream for all of them unless `reset`; a final
/// block starts a fresh stream, as the sender may end a message with one.
private func reference(_ messages: [[[UInt8]]], finished: Bool, reset: Bool) -> [Result] {
    var stream = z_stream()
    guard douyin_inflate_init_raw(&stream, 15) == Z_OK else { return [] }
    defer { inflateEnd(&stream) }
    var results: [Result] = []
    var out = [UInt8](repeating: 0, count: 1 << 16)
    for (index, frames) in messages.enumerated() {
        var input = frames.flatMap { $0 }
        if finished || index < messages.count - 1 { input += [0x00, 0x00, 0xFF, 0xFF] }
        var produced: [UInt8] = []
        var failed = false
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let (status, count) = out.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int) in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let status = inflate(&stream, Z_SYNC_FLUSH)
                    return (status, outBuffer.count - Int(stream.avail_out))
                }
                produced += out[0..<count]
                if status == Z_STREAM_END { inflateReset(&stream) } else if status != Z_OK && status != Z_BUF_ERROR { failed = true; return }
                if produced.count > limit { return }
                if stream.avail_in == 0 && count < out.count { return }
                if status == Z_BUF_ERROR && count == 0 { return }
            }
        }
        stream.next_in = nil
        let result: Result = produced.count > limit ? .tooBig(0) : failed ? .corrupt : .inflated(produced)
        results.append(result)
        if result != .inflated(produced) { break }
        if reset { inflateReset(&stream) }
    }
    return results
}
