import DouyinTestSupport
import Testing

@Suite("SeededRandom (the tests' generator)")
struct SeededRandomTests {
    /// `bytes(_:)` took a faster path: a seed must still name the data it named before, or a
    /// failure reported with its seed could not be replayed.
    @Test func bytesAreWhatUInt8RandomGaveForTheSameSeed() {
        var fast = SeededRandom(seed: 0xB17E5)
        var slow = fast
        let bytes = fast.bytes(4_099)
        let expected = (0..<4_099).map { _ in UInt8.random(in: 0...255, using: &slow) }
        #expect(bytes == expected, "\(fast)")
        #expect(fast.next() == slow.next(), "both generators are at the same point after")
        #expect(fast.bytes(0).isEmpty)
    }
}
