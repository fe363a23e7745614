import DouyinTestSupport
@testable import DouyinWebP
import Foundation
import Testing

@Suite("Composited frames match libwebp's decoder to the pixel")
struct CompositingTests {
    @Test func losslessFramesEqualTheirSources() throws {
        let animation = try WebPAnimation(data: Fixtures.data("webp/lossless-opaque.webp"))
        // img2webp stored sub-rectangles; compositing must rebuild the whole source frames.
        #expect(animation.frames.dropFirst().allSatisfy { $0.width < animation.canvasWidth })
        for index in 0..<6 {
            let source = pamPixels(try Fixtures.data("webp/frames/opaque-\(index).pam"))
            let pixels = try animation.frame(at: index, alphaMode: .straight).rgba
            #expect(pixels == source, "frame \(index): \(zip(pixels, source).filter { $0 != $1 }.count) bytes differ")
        }
    }

    @Test func frameIndex() throws {
        let animation = try WebPAnimation(data: Fixtures.data("webp/muxed-alpha.webp"))
        #expect((animation.canvasWidth, animation.canvasHeight) == (40, 30))
        #expect(animation.loopCount == 3)
        #expect(animation.backgroundColor == 0xFFFF_FFFF)
        let frames = animation.frames
        #expect(frames.map(\.x) == [0, 4, 10, 12, 20, 8])
        #expect(frames.map(\.y) == [0, 6, 10, 4, 14, 8])
        #expect(frames.map(\.width) == [40, 16, 16, 20, 12, 24])
        #expect(frames.map(\.fileDuration) == [60, 61, 62, 63, 64, 65].map { Duration.milliseconds($0) })
        #expect(frames.map(\.disposesToBackground) == [false, false, true, true, false, false])
        #expect(frames.map(\.blendsWithPrevious) == [false, true, true, false, false, true])
        #expect(frames.map(\.isKeyframe) == [true, false, false, false, false, false])
    }

    @Test func stillsAreOneFrameAnimations() throws {
        for file in ["webp/still-lossy.webp", "webp/still-lossless-alpha.webp"] {
            let animation = try WebPAnimation(data: Fixtures.data(file))
            #expect(animation.frames.count == 1)
            #expect(animation.frames[0].isKeyframe)
            #expect((animation.canvasWidth, animation.canvasHeight) == (33, 21))
        }
        #expect(try WebPAnimation(data: Fixtures.data("webp/still-lossy.webp")).frames[0].hasAlpha == false)
        #expect(try WebPAnimation(data: Fixtures.data("webp/still-lossless-alpha.webp")).frames[0].hasAlpha)
    }

    @Test func randomAccessEqualsSequentialPlayback() throws {
        let data = try Fixtures.data("webp/muxed-alpha.webp")
        let sequential = try WebPAnimation(data: data)
        let played = try (0..<6).map { try sequential.frame(at: $0) }
        for index in [5, 2, 4, 0, 3, 3, 1] {
            #expect(try WebPAnimation(data: data).frame(at: index) == played[index])
            #expect(try sequential.frame(at: index) == played[index])
        }
    }

    @Test func oneAnimationDecodedFromManyThreadsGivesTheRightFrames() async throws {
        let data = try Fixtures.data("webp/muxed-alpha.webp")
        let expected = try #require(ReferenceDecoder.frames(of: data))
        let shared = try WebPAnimation(data: data)
        // Sequential steps and random jumps interleave on one object: its reused canvas and
        // scratch buffer must never be shared between two threads.
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var mismatches = 0
                    for step in 0..<300 {
                        let index = worker % 2 == 0 ? step % expected.count : Int.random(in: 0..<expected.count, using: &generator)
                        if (try? shared.frame(at: index).rgba) != expected[index] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test func tinyDurationsPlayAsOneHundredMilliseconds() throws {
        let frame = WebPFrameInfo(index: 0, x: 0, y: 0, width: 1, height: 1, fileDuration: .milliseconds(10), blendsWithPrevious: false,
                                  disposesToBackground: false, hasAlpha: false, isKeyframe: true)
        #expect(frame.displayDuration == .milliseconds(100))
        var longer = frame
        longer.fileDuration = .milliseconds(11)
        #expect(longer.displayDuration == .milliseconds(11))
        #expect(try WebPAnimation(data: Fixtures.data("webp/muxed-alpha.webp")).frame(at: 1).duration == .milliseconds(61))
    }
}
