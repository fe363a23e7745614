import DouyinTestSupport
import DouyinWebP
import Foundation
import Testing

@Suite("Bad WebP input is a typed error, never a crash")
struct WebPBadInputTests {
    /// Decodes every frame, reporting the first error.
    func decodeAll(_ data: Data) -> WebPError? {
        do {
            let animation = try WebPAnimation(data: data)
            for index in animation.frames.indices { _ = try animation.frame(at: index) }
            return nil
        } catch {
            return error
        }
    }

    /// The file with its VP8X canvas size (bytes 24…29, 24-bit little-endian, minus one) replaced.
    func withCanvas(_ data: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](data)
        for (offset, value) in [(24, width - 1), (27, height - 1)] {
            for byte in 0..<3 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        return Data(bytes)
    }

    @Test func truncatedAtEveryLength() throws {
        let whole = try Fixtures.data("webp/muxed-alpha.webp")
        for length in 0..<whole.count {
            #expect(decodeAll(whole.prefix(length)) != nil, "length \(length)")
        }
        #expect(decodeAll(whole) == nil)
    }

    @Test func randomBytes() {
        var generator = SeededRandom(seed: 500)
        for _ in 0..<500 {
            let bytes = Data(generator.bytes(Int.random(in: 0..<400, using: &generator)))
            #expect(decodeAll(bytes) != nil, "\(generator)")
        }
        var riff = Data("RIFF".utf8) + Data([0xff, 0xff, 0xff, 0x7f]) + Data("WEBPVP8X".utf8)
        riff += Data(count: 20)
        #expect(decodeAll(riff) == .invalidContainer)
    }

    @Test func hugeCanvasIsRefusedBeforeAllocating() throws {
        let data = withCanvas(try Fixtures.data("webp/muxed-alpha.webp"), width: 16384, height: 16384)
        #expect(decodeAll(data) == .canvasTooLarge(width: 16384, height: 16384, limit: WebPAnimation.defaultMaxCanvasPixels))
        let bigger = withCanvas(try Fixtures.data("webp/muxed-alpha.webp"), width: 100_000, height: 100_000)
        #expect(decodeAll(bigger) != nil)
    }

    @Test func frameOutsideTheCanvas() throws {
        let data = withCanvas(try Fixtures.data("webp/muxed-alpha.webp"), width: 20, height: 20)
        let error = decodeAll(data)
        #expect(error == .frameOutsideCanvas(index: 0) || error == .invalidContainer)
    }

    @Test func frameIndexOutOfRange() throws {
        let animation = try WebPAnimation(data: Fixtures.data("webp/still-lossy.webp"))
        #expect(throws: WebPError.frameIndexOutOfRange(index: 1, count: 1)) { try animation.frame(at: 1) }
        #expect(throws: WebPError.frameIndexOutOfRange(index: -1, count: 1)) { try animation.frame(at: -1) }
    }

    @Test func fuzzLoopOverMutatedRealFiles() throws {
        var random = SeededRandom(seed: 3000)
        let seeds = try ["webp/muxed-alpha.webp", "webp/lossless-opaque.webp", "webp/covers/cover-1.webp"].map { try Fixtures.data($0) }
        var failures = 0
        for round in 0..<3000 {
            var bytes = [UInt8](seeds[round % seeds.count])
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if decodeAll(Data(bytes)) != nil { failures += 1 }
        }
        // Reaching here is the test: no mutation trapped. Most mutations must also be noticed.
        #expect(failures > 0, "\(random)")
    }
}
