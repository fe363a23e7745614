import Foundation

/// The reader thread's bytes received but not yet parsed. One storage array is reused: a receive
/// writes straight into its free tail, and the storage grows (zero-filled once per growth) only
/// when a frame needs more room than it has. The previous buffer zero-filled 64 KiB (or the
/// whole missing frame) before every receive and trimmed it after, which in a debug build cost
/// ~15 ms of CPU per small message and grew quadratically with a 16 MiB frame read in pieces.
package struct ReceiveBuffer {
    /// Bytes `start..<end` are received and unread; the rest is free room.
    private var storage: [UInt8]
    private var start = 0
    private var end: Int

    /// The fewest bytes of room a receive is offered: small frames then arrive many per call.
    package static let minimumRoom = 64 << 10
    /// Storage above this is let go once it holds nothing unread (after a large frame), so one
    /// 16 MiB message does not pin 16 MiB for the connection's life.
    package static let keptStorage = 1 << 20

    /// A buffer holding `leftover`: bytes that came after the handshake's answer.
    package init(leftover: [UInt8] = []) {
        storage = leftover
        end = leftover.count
    }

    /// Bytes of storage held, received or free (what the connection keeps between frames).
    package var storageSize: Int { storage.count }

    /// Bytes received and not yet taken.
    package var unread: Int { end - start }

    /// Calls `receive` once with free room for at least `count - unread` more bytes (and at least
    /// ``minimumRoom``), and keeps the bytes it reports; returns that count (0: end of stream).
    package mutating func fill(toHold count: Int, _ receive: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        if start > 0 {
            // Unread bytes move to the front; they are fewer than one frame header or payload.
            let (from, length) = (start, unread)
            storage.withUnsafeMutableBytes { raw in
                if length > 0, let base = raw.baseAddress { memmove(base, base + from, length) }
            }
            (start, end) = (0, length)
        }
        let wanted = end + max(Self.minimumRoom, count - end)
        if storage.count < wanted { storage.append(contentsOf: [UInt8](repeating: 0, count: wanted - storage.count)) }
        let filled = end
        let received = try storage.withUnsafeMutableBytes { raw in
            try receive(UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
        }
        precondition(received >= 0 && received <= storage.count - filled, "receive reported \(received) bytes")
        end += received
        return received
    }

    /// The next `count` unread bytes; the caller made sure there are that many.
    package mutating func take(_ count: Int) -> [UInt8] {
        precondition(count <= unread, "taking \(count) of \(unread) unread bytes")
        // Not for none: `Array(unsafeUninitializedCapacity: 0)` writes the count of the empty
        // array every process shares, which Thread Sanitizer reports as a race with any read of
        // it on another thread (an empty frame is common: a ping, a close without a body).
        guard count > 0 else { return [] }
        let from = start
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { destination, initialized in
            storage.withUnsafeBytes { raw in
                if count > 0, let base = raw.baseAddress { memcpy(destination.baseAddress!, base + from, count) }
            }
            initialized = count
        }
        start += count
        if start == end {
            (start, end) = (0, 0)
            if storage.count > Self.keptStorage { storage = [] }
        }
        return bytes
    }

    /// Forgets every unread byte (the connection is closing and only waits for its end).
    package mutating func removeAll() {
        (start, end) = (0, 0)
        storage = []
    }
}
