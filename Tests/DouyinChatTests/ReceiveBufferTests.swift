import DouyinChat
import Testing

/// The reader's receive buffer: frames split over receives and many frames in one receive come
/// out byte for byte, a receive is offered room for the whole missing frame, and the storage a
/// 16 MiB frame needed is let go once it is taken.
@Suite("Receive buffer")
struct ReceiveBufferTests {
    /// Feeds `source` in pieces of at most `piece` bytes, as a socket would.
    struct Source {
        var bytes: [UInt8]
        var offset = 0
        let piece: Int
        var offered: [Int] = []

        mutating func receive(into room: UnsafeMutableRawBufferPointer) -> Int {
            offered.append(room.count)
            let count = min(piece, room.count, bytes.count - offset)
            let from = offset
            bytes.withUnsafeBytes { room.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[from..<from + count])) }
            offset += count
            return count
        }
    }

    @Test func framesSplitOverReceivesAndManyInOneComeOutWhole() {
        let frames = (0..<50).map { index in [UInt8](repeating: UInt8(index), count: index * 37 % 300 + 1) }
        for piece in [1, 7, 256, 1 << 16] {
            var source = Source(bytes: frames.flatMap { $0 }, piece: piece)
            var buffer = ReceiveBuffer(leftover: [])
            var out: [[UInt8]] = []
            for frame in frames {
                while buffer.unread < frame.count { _ = buffer.fill(toHold: frame.count) { source.receive(into: $0) } }
                out.append(buffer.take(frame.count))
            }
            #expect(out == frames, "pieces of \(piece)")
            #expect(buffer.unread == 0)
        }
    }

    @Test func leftoverFromTheHandshakeComesFirst() {
        var buffer = ReceiveBuffer(leftover: [1, 2, 3])
        var source = Source(bytes: [4, 5], piece: 10)
        #expect(buffer.take(2) == [1, 2])
        while buffer.unread < 3 { _ = buffer.fill(toHold: 3) { source.receive(into: $0) } }
        #expect(buffer.take(3) == [3, 4, 5])
    }

    @Test func aLargeFrameIsOfferedWholeRoomAndItsStorageLetGo() {
        let size = 16 << 20
        var source = Source(bytes: [UInt8](repeating: 0xA5, count: size), piece: 64 << 10)
        var buffer = ReceiveBuffer()
        while buffer.unread < size { _ = buffer.fill(toHold: size) { source.receive(into: $0) } }
        // Every receive had room for all that was still missing: no frame read 64 KiB at a time
        // into a buffer grown (and zero-filled) again for each piece.
        #expect(source.offered.count == size / (64 << 10))
        #expect(zip(source.offered, source.offered.indices).allSatisfy { room, index in room >= size - index * (64 << 10) })
        #expect(buffer.storageSize >= size)
        let frame = buffer.take(size)
        #expect(frame.count == size && frame.allSatisfy { $0 == 0xA5 })
        #expect(buffer.storageSize <= ReceiveBuffer.keptStorage, "kept \(buffer.storageSize) bytes after the frame")
    }

    @Test func endOfStreamReportsZero() {
        var buffer = ReceiveBuffer()
        var source = Source(bytes: [], piece: 8)
        #expect(buffer.fill(toHold: 2) { source.receive(into: $0) } == 0)
        #expect(buffer.unread == 0)
    }
}
