import DouyinTestSupport
import DouyinWebP
import Foundation
import Testing

/// Issue 13: straight-alpha canvases equal libwebp's `MODE_RGBA` to the byte.
@Suite("Both alpha modes equal libwebp's WebPAnimDecoder")
struct AlphaModeTests {
    @Test(arguments: WebPCorpus.all, [WebPAlphaMode.premultiplied, .straight])
    func everyFrameEqualsWebPAnimDecoder(file: String, mode: WebPAlphaMode) throws {
        let data = try Fixtures.data(file)
        let reference = try #require(ReferenceDecoder.frames(of: data, mode: mode))
        let animation = try WebPAnimation(data: data, alphaMode: mode)
        #expect(animation.frames.count == reference.count)
        for index in animation.frames.indices {
            let frame = try animation.frame(at: index)
            #expect(frame.alphaMode == mode)
            // Array equality runs in the optimized standard library; count only on a mismatch.
            if frame.rgba != reference[index] {
                let differing = zip(frame.rgba, reference[index]).filter { $0 != $1 }.count
                Issue.record("\(file) \(mode) frame \(index): \(differing) bytes differ (sizes \(frame.rgba.count), \(reference[index].count))")
            }
        }
    }

    @Test("Regression: straight frames divided back from premultiplied ones lost the colour at low alpha",
          arguments: ["webp/low-alpha-lossy.webp", "webp/low-alpha-lossless.webp", "webp/low-alpha-img2webp.webp"])
    func lowAlphaColourSurvives(file: String) throws {
        let data = try Fixtures.data(file)
        let straight = try #require(ReferenceDecoder.frames(of: data, mode: .straight))
        let premultiplied = try #require(ReferenceDecoder.frames(of: data, mode: .premultiplied))
        // The fixture must hold pixels where dividing the premultiplied canvas back (the old
        // webp-frames output) gives another colour than libwebp's straight canvas.
        var lossy = 0
        for (straightFrame, premultipliedFrame) in zip(straight, premultiplied) {
            for offset in stride(from: 0, to: straightFrame.count, by: 4) where premultipliedFrame[offset + 3] != 0 {
                let alpha = Int(premultipliedFrame[offset + 3])
                let divided = (Int(premultipliedFrame[offset]) * 255 + alpha / 2) / alpha
                if min(255, divided) != Int(straightFrame[offset]) { lossy += 1 }
            }
        }
        #expect(lossy > 100, "only \(lossy) pixels lose colour when divided back")
        let animation = try WebPAnimation(data: data, alphaMode: .straight)
        for index in animation.frames.indices {
            #expect(try animation.frame(at: index).rgba == straight[index], "frame \(index)")
        }
    }

    @Test func thePerCallModeOverridesTheAnimationsAndPlaybackKeepsModesApart() throws {
        let data = try Fixtures.data("webp/low-alpha-lossless.webp")
        let straight = try #require(ReferenceDecoder.frames(of: data, mode: .straight))
        let premultiplied = try #require(ReferenceDecoder.frames(of: data, mode: .premultiplied))
        let animation = try WebPAnimation(data: data, alphaMode: .straight)
        #expect(animation.alphaMode == .straight)
        // Alternate modes frame by frame: a canvas kept for sequential playback in one mode must
        // never be continued in the other.
        for index in animation.frames.indices {
            #expect(try animation.frame(at: index, alphaMode: .premultiplied).rgba == premultiplied[index], "frame \(index)")
            #expect(try animation.frame(at: index).rgba == straight[index], "frame \(index)")
        }
        let byDefault = try WebPAnimation(data: data)
        #expect(byDefault.alphaMode == .premultiplied)
        #expect(try byDefault.frame(at: 3).rgba == premultiplied[3])
    }

    @Test func firstFrameOfPartialDataInEitherMode() throws {
        let data = try Fixtures.data("webp/low-alpha-lossy.webp")
        for mode in [WebPAlphaMode.premultiplied, .straight] {
            let reference = try #require(ReferenceDecoder.frames(of: data, mode: mode))
            let frame = try #require(try WebPAnimation.firstFrame(ofPartialData: data.prefix(data.count - 1), alphaMode: mode))
            #expect(frame.rgba == reference[0])
            #expect(frame.alphaMode == mode)
        }
    }

    @Test func oneAnimationDecodedFromManyThreadsInBothModes() async throws {
        let data = try Fixtures.data("webp/low-alpha-lossless.webp")
        let expected = try [WebPAlphaMode.premultiplied, .straight].map { try #require(ReferenceDecoder.frames(of: data, mode: $0)) }
        let shared = try WebPAnimation(data: data)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var generator = SeededRandom(seed: 13_000 + UInt64(worker))
                    var mismatches = 0
                    for step in 0..<200 {
                        let mode = Int.random(in: 0...1, using: &generator)
                        let index = worker % 2 == 0 ? step % expected[0].count : Int.random(in: 0..<expected[0].count, using: &generator)
                        let alpha: WebPAlphaMode = mode == 0 ? .premultiplied : .straight
                        if (try? shared.frame(at: index, alphaMode: alpha).rgba) != expected[mode][index] { mismatches += 1 }
                    }
                    if mismatches > 0 { Issue.record("worker \(worker): \(mismatches) wrong frames, \(generator)") }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}

/// Issue 13: a damaged file is accepted or refused exactly when libwebp accepts or refuses it,
/// and when both accept, the frames agree.
@Suite("Truncated and overwritten files: the same decision as libwebp")
struct LibWebPAgreementTests {
    /// Every canvas of `data` in straight alpha, or the first error.
    func ours(_ data: Data) -> Result<[[UInt8]], WebPError> {
        Result { () throws(WebPError) in
            let animation = try WebPAnimation(data: data, alphaMode: .straight)
            return try animation.frames.indices.map { index throws(WebPError) in try animation.frame(at: index).rgba }
        }
    }

    /// Whether libwebp and DouyinWebP reach the same decision on `variant` (and the same frames
    /// when both accept it); `nil` for a canvas above ``WebPAnimation/defaultMaxCanvasPixels``,
    /// which DouyinWebP refuses by design before allocating and libwebp allocates.
    func agree(_ variant: Data, _ label: String) -> Bool? {
        let decoded = ours(variant)
        if case .failure(.canvasTooLarge) = decoded { return nil }
        let reference = ReferenceDecoder.frames(of: variant, mode: .straight)
        switch (reference, decoded) {
        case (nil, .failure), (.some, .success):
            guard case .success(let frames) = decoded, frames != reference else { return true }
            Issue.record("\(label): both accept but the frames differ")
            return false
        case (nil, .success):
            Issue.record("\(label): libwebp refuses, DouyinWebP accepts")
            return false
        case (.some, .failure(let error)):
            Issue.record("\(label): libwebp accepts, DouyinWebP refuses: \(error)")
            return false
        }
    }

    @Test(arguments: WebPCorpus.small)
    func everyTruncation(file: String) throws {
        let whole = try Fixtures.data(file)
        var accepted = 0
        for length in 0...whole.count {
            let variant = whole.prefix(length)
            #expect(agree(variant, "\(file) cut to \(length)") != false)
            if case .success = ours(variant) { accepted += 1 }
        }
        // Only the whole file decodes: a WebP shorter than its RIFF size is refused by both.
        #expect(accepted == 1)
    }

    @Test(arguments: WebPCorpus.small)
    func everyOverwrittenByte(file: String) throws {
        let whole = [UInt8](try Fixtures.data(file))
        var decisions: [Bool?: Int] = [:]
        for offset in whole.indices {
            for replacement in [whole[offset] ^ 0xFF, 0x00] where replacement != whole[offset] {
                var bytes = whole
                bytes[offset] = replacement
                let variant = Data(bytes)
                guard let agreed = agree(variant, "\(file) byte \(offset) = \(replacement)") else {
                    decisions[nil, default: 0] += 1
                    continue
                }
                guard agreed else { continue }
                decisions[(try? ours(variant).get()) != nil, default: 0] += 1
            }
        }
        // The variants must reach both decisions for the agreement to mean something.
        #expect(decisions[true, default: 0] > 0 && decisions[false, default: 0] > 0, "\(decisions)")
    }
}
