#if canImport(CZlib)
import CZlib
#endif

/// Why a compressed message could not be inflated.
enum InflateFailure: Error {
    /// Inflating would pass the message size limit (a decompression bomb, or just too big).
    case tooBig(inflated: Int)
    /// The payload is not raw deflate data (zlib's message).
    case corrupt(String)
}

/// One connection's permessage-deflate, as negotiated: compresses outgoing messages and inflates
/// incoming compressed ones; without a negotiation (or without zlib) it passes bytes through
/// and a compressed frame is a protocol error.
final class MessageCompression: @unchecked Sendable {
    // @unchecked: the inflater is used by the reader thread only, the deflater under the
    // connection's write lock only.
    #if canImport(CZlib)
    private let inflater: MessageInflater?
    private let deflater: MessageDeflater?
    #endif

    /// The codec for `negotiation` (`nil`: none negotiated).
    init(_ negotiation: DeflateNegotiation?) {
        #if canImport(CZlib)
        inflater = negotiation.flatMap { MessageInflater(resetAfterMessage: $0.serverNoContextTakeover) }
        // A server cap of 8 bits cannot be met by zlib's raw deflate (9 at least): then messages
        // go out uncompressed, which §6 allows message by message.
        deflater = negotiation.flatMap { MessageDeflater(windowBits: $0.clientMaxWindowBits) }
        #endif
    }

    /// Whether incoming messages may be compressed (RSV1 allowed).
    var inflates: Bool {
        #if canImport(CZlib)
        inflater != nil
        #else
        false
        #endif
    }

    /// The payload to send for `message`, and whether it is compressed.
    func outgoing(_ message: [UInt8]) -> (payload: [UInt8], compressed: Bool) {
        #if canImport(CZlib)
        if let deflater { return (deflater.compress(message), true) }
        #endif
        return (message, false)
    }

    /// Inflates one frame of a compressed message onto `output` (see ``MessageInflater``).
    func inflate(_ payload: [UInt8], last: Bool, limit: Int, into output: inout [UInt8]) throws(InflateFailure) {
        #if canImport(CZlib)
        if let inflater { return try inflater.inflate(payload, last: last, limit: limit, into: &output) }
        #endif
        throw .corrupt("no compression was negotiated")
    }
}

#if canImport(CZlib)

/// permessage-deflate's decompressor (RFC 7692 §7.2.2) over zlib's raw inflate. Fed one frame
/// at a time, it stops as soon as the message would pass the size limit, so a small frame that
/// inflates to gigabytes costs at most the limit plus one 64 KiB chunk. Used by one thread.
final class MessageInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let resetAfterMessage: Bool
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)

    /// A decompressor (any server window: it inflates with the largest); `resetAfterMessage`
    /// for a server that compresses without context takeover. `nil` when zlib cannot start one.
    init?(resetAfterMessage: Bool) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Inflating with the largest window accepts data made with any smaller one.
        guard douyin_inflate_init_raw(stream, 15) == Z_OK else {
            stream.deallocate()
            return nil
        }
        self.stream = stream
        self.resetAfterMessage = resetAfterMessage
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates one frame's `payload` onto `output`; `last` ends the message (the
    /// `00 00 FF FF` tail of §7.2.2 is added). Throws once `output` would pass `limit` bytes.
    func inflate(_ payload: [UInt8], last: Bool, limit: Int, into output: inout [UInt8]) throws(InflateFailure) {
        var input = payload
        if last { input += [0x00, 0x00, 0xFF, 0xFF] }
        let failure: InflateFailure? = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.pointee.next_in = inBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int) in
                    stream.pointee.next_out = outBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(outBuffer.count)
                    let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
                    return (status, outBuffer.count - Int(stream.pointee.avail_out))
                }
                switch status {
                case Z_OK, Z_BUF_ERROR: break
                case Z_STREAM_END:
                    // A sender may end a message with a final block: the next one starts afresh.
                    inflateReset(stream)
                default:
                    return .corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)")
                }
                if output.count + produced > limit { return .tooBig(inflated: output.count + produced) }
                output += chunk[0..<produced]
                if stream.pointee.avail_in == 0 && produced < chunk.count { return nil }
                if status == Z_BUF_ERROR && produced == 0 { return nil }
            }
        }
        stream.pointee.next_in = nil
        if let failure { throw failure }
        if last && resetAfterMessage { inflateReset(stream) }
    }
}

/// permessage-deflate's compressor (RFC 7692 §7.2.1) over zlib's raw deflate; the connection's
/// is reset after every message (the client's offer promises no context takeover) and used under
/// its write lock. The chat benchmark also runs one with context takeover, as a server would.
package final class MessageDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let resetAfterMessage: Bool
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)

    /// A compressor with a window of `windowBits` (9-15; zlib's raw deflate has no 8-bit window,
    /// so for 8 the caller sends messages uncompressed), reset after each message unless
    /// `resetAfterMessage` is `false`. `nil` when zlib cannot start one.
    package init?(windowBits: Int, resetAfterMessage: Bool = true) {
        self.resetAfterMessage = resetAfterMessage
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard (9...15).contains(windowBits), douyin_deflate_init_raw(stream, Z_DEFAULT_COMPRESSION, Int32(windowBits)) == Z_OK else {
            stream.deallocate()
            return nil
        }
        self.stream = stream
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// `message` compressed, without the `00 00 FF FF` tail of the final sync flush.
    package func compress(_ message: [UInt8]) -> [UInt8] {
        var input = message
        var output: [UInt8] = []
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.pointee.next_in = inBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inBuffer.count)
            while true {
                let (produced, full) = chunk.withUnsafeMutableBufferPointer { outBuffer -> (Int, Bool) in
                    stream.pointee.next_out = outBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(outBuffer.count)
                    _ = deflate(stream, Z_SYNC_FLUSH)
                    return (outBuffer.count - Int(stream.pointee.avail_out), stream.pointee.avail_out == 0)
                }
                output += chunk[0..<produced]
                if !full { break }
            }
        }
        stream.pointee.next_in = nil
        if resetAfterMessage { deflateReset(stream) }
        if output.count >= 4, output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) { output.removeLast(4) }
        return output
    }
}
#endif
