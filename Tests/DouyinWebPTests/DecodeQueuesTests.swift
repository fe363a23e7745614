import DouyinSupport
import DouyinTestSupport
import DouyinWebP
import Foundation
import Testing

/// A thread-safe log of what a callback request delivered, and a way to await every end.
final class DeliveryLog: Sendable {
    private struct State {
        var entries: [(request: Int, frame: Int, pixels: [UInt8])] = []
        /// Each end with its error's description (`nil`: ended without one).
        var ends: [(request: Int, error: String?)] = []
        var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    private let state = LockedBox(State())

    func frame(_ request: Int, _ frame: WebPCanvasFrame) {
        state.withLock { $0.entries.append((request, frame.index, frame.rgba)) }
    }

    func end(_ request: Int, _ error: (any Error)?) {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.ends.append((request, error.map { "\($0)" }))
            guard let waiter = state.waiter, state.ends.count >= waiter.count else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    /// Returns once `count` requests have ended.
    func waitForEnds(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.ends.count >= count { return true }
                state.waiter = (count, continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    var delivered: [(request: Int, frame: Int, pixels: [UInt8])] { state.withLock { $0.entries } }
    var ended: [(request: Int, error: String?)] { state.withLock { $0.ends } }
}

@Suite("WebPDecodeQueues: first frames first, bounded, cancellable, within budget")
struct DecodeQueuesTests {
    static let coverFiles = (0..<3).map { "webp/covers/cover-\($0).webp" } + (0..<4).map { "webp/bench/cover-lossy-\($0).webp" }
        + ["webp/bench/cover-lossless.webp", "webp/muxed-alpha.webp", "webp/lossless-opaque.webp"]

    /// 24 animations cycling through the corpus, each a separate object as a grid would make.
    func twentyFourCovers() throws -> [WebPAnimation] {
        let files = try Self.coverFiles.map { try Fixtures.data($0) }
        return try (0..<24).map { try WebPAnimation(data: files[$0 % files.count]) }
    }

    @Test func everyFirstFrameOfTwentyFourIsDeliveredBeforeAnyLaterFrame() async throws {
        let animations = try twentyFourCovers()
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 2))
        let log = DeliveryLog()
        _ = queues.decode(animations, onFrame: { log.frame($0, $1) }, onEnd: { log.end($0, $1) })
        await log.waitForEnds(24)
        let delivered = log.delivered
        #expect(delivered.count == animations.reduce(0) { $0 + $1.frames.count })
        let firstLater = try #require(delivered.firstIndex { $0.frame > 0 })
        #expect(delivered.prefix(firstLater).count == 24, "frames before the first later frame: \(delivered.prefix(firstLater).map(\.request))")
        for (number, animation) in animations.enumerated() {
            let frames = delivered.filter { $0.request == number }
            #expect(frames.map(\.frame) == Array(animation.frames.indices), "request \(number) in order")
        }
        #expect(log.ended.allSatisfy { $0.error == nil })
        #expect(queues.statistics.peakConcurrentDecodes <= 2)
        #expect(queues.statistics.peakConcurrentDecodes >= 1)
    }

    /// An operation goes on with the next frame the schedule gives it only when it is of the
    /// same kind, so first frames keep the first-frame queue's quality of service and later
    /// frames never take it: each frame is decoded on its own kind's queue.
    @Test func everyFrameIsDecodedOnItsOwnKindsQueue() async throws {
        let animations = try twentyFourCovers()
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 2))
        let seen = LockedBox<[(frame: Int, onFirstFrameQueue: Bool, onLaterFrameQueue: Bool)]>([])
        let log = DeliveryLog()
        _ = queues.decode(animations, onFrame: { [firstQueue = queues.firstFrameQueue, laterQueue = queues.laterFrameQueue] number, frame in
            let current = OperationQueue.current
            seen.withLock { $0.append((frame.index, current === firstQueue, current === laterQueue)) }
            log.frame(number, frame)
        }, onEnd: { log.end($0, $1) })
        await log.waitForEnds(24)
        let frames = seen.withLock { $0 }
        #expect(frames.count == animations.reduce(0) { $0 + $1.frames.count })
        #expect(frames.filter { $0.frame == 0 }.allSatisfy { $0.onFirstFrameQueue && !$0.onLaterFrameQueue })
        #expect(frames.filter { $0.frame > 0 }.allSatisfy { $0.onLaterFrameQueue && !$0.onFirstFrameQueue })
    }

    @Test func laterFramesTakeTurnsInRunsOfEightOfOneAnimation() async throws {
        // One decode at a time, so the order is the schedule's alone.
        // Covers of 9 frames and 6, and a 200-frame animation between them (runs cut short).
        let animations = try twentyFourCovers().prefix(12) + [WebPAnimation(data: Fixtures.data("webp/long-200.webp"))]
            + twentyFourCovers().prefix(12)
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 1))
        let log = DeliveryLog()
        _ = queues.decode(Array(animations), onFrame: { log.frame($0, $1) }, onEnd: { log.end($0, $1) })
        await log.waitForEnds(animations.count)
        let later = log.delivered.filter { $0.frame > 0 }.map(\.request)
        // The lengths of the runs of one request in a row, in delivery order.
        var runs: [(request: Int, length: Int)] = []
        for request in later {
            if runs.last?.request == request { runs[runs.count - 1].length += 1 } else { runs.append((request, 1)) }
        }
        var left = animations.map { $0.frames.count - 1 }
        for run in runs {
            // Each run is eight frames, or what its animation had left; longer only once no
            // other animation has a frame left (its runs then follow each other).
            let othersDone = left.indices.allSatisfy { $0 == run.request || left[$0] == 0 }
            #expect(run.length == min(8, left[run.request]) || (othersDone && run.length == left[run.request]),
                    "request \(run.request): \(run.length) in a row with \(left[run.request]) left")
            left[run.request] -= run.length
        }
        #expect(left.allSatisfy { $0 == 0 })
        // The first turns go in request order: every animation starts moving soon.
        let firstTurns = runs.reduce(into: [Int]()) { seen, run in if !seen.contains(run.request) { seen.append(run.request) } }
        #expect(firstTurns == animations.indices.filter { animations[$0].frames.count > 1 })
        // The long one took turns with the covers in runs of 8 while they had frames left.
        let longRuns = runs.filter { $0.request == 12 }.map(\.length)
        #expect(longRuns.count >= 2 && longRuns.dropLast().allSatisfy { $0 == 8 }, "\(longRuns)")
    }

    @Test func aBatchOfStreamsDeliversFirstFramesFirstAndTheRightPixels() async throws {
        let animations = try twentyFourCovers()
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 3))
        let requests = queues.decode(animations)
        let order = DeliveryLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, request) in requests.enumerated() {
                group.addTask {
                    for try await frame in request.frames { order.frame(number, frame) }
                    order.end(number, nil)
                }
            }
            try await group.waitForAll()
        }
        #expect(queues.statistics.peakConcurrentDecodes <= 3)
        for (number, animation) in animations.enumerated() {
            let frames = order.delivered.filter { $0.request == number }
            #expect(frames.map(\.frame) == Array(animation.frames.indices))
            let direct = try WebPAnimation(data: Fixtures.data(Self.coverFiles[number % Self.coverFiles.count]))
            for frame in frames where frame.frame % 4 == 0 {
                #expect(frame.pixels == (try direct.frame(at: frame.frame).rgba), "request \(number) frame \(frame.frame)")
            }
        }
    }

    @Test func concurrencyNeverExceedsTheBound() async throws {
        for bound in [1, 2, 4] {
            let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: bound))
            let log = DeliveryLog()
            for (number, animation) in try twentyFourCovers().enumerated() {
                _ = queues.decode(animation, onFrame: { log.frame(number, $0) }, onEnd: { log.end(number, $0) })
            }
            await log.waitForEnds(24)
            #expect(queues.statistics.peakConcurrentDecodes <= bound, "bound \(bound)")
        }
    }

    @Test func cancellingInsideACallbackStopsFurtherFrames() async throws {
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 2))
        let animation = try WebPAnimation(data: Fixtures.data("webp/long-200.webp"))
        let log = DeliveryLog()
        let request = LockedBox<WebPDecodeRequest?>(nil)
        // Frame 5 may arrive before `decode` has returned the request (a loaded machine did so
        // and the test saw all 200 frames): the callback waits until the request is stored.
        let stored = DispatchSemaphore(value: 0)
        let made = queues.decode(animation, onFrame: { frame in
            log.frame(0, frame)
            if frame.index == 5 {
                stored.wait()
                request.withLock { $0 }?.cancel()
            }
        }, onEnd: { log.end(0, $0) })
        request.withLock { $0 = made }
        stored.signal()
        await log.waitForEnds(1)
        await drained(queues.firstFrameQueue, queues.laterFrameQueue)
        #expect(log.delivered.map(\.frame) == Array(0...5))
        #expect(log.ended.count == 1 && log.ended[0].error == nil)
        #expect(made.hasEnded)
    }

    @Test func cancellingAStreamEndsItAndDropsQueuedWork() async throws {
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 1))
        let animations = try twentyFourCovers()
        let requests = queues.decode(animations)
        for request in requests.dropFirst() { request.cancel() }
        var iterator = requests[0].frames.makeAsyncIterator()
        #expect(try await iterator.next()?.index == 0)
        requests[0].cancel()
        #expect(try await iterator.next() == nil)
        await drained(queues.firstFrameQueue, queues.laterFrameQueue)
        for request in requests.dropFirst() {
            var other = request.frames.makeAsyncIterator()
            #expect(try await other.next() == nil, "a cancelled stream yields nothing")
        }
        #expect(requests.allSatisfy { $0.hasEnded })
    }

    @Test func cancellingAStreamWhoseFramesAreAllDecodedDropsThem() async throws {
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 1))
        let log = DeliveryLog()
        let animation = try WebPAnimation(data: Fixtures.data("webp/covers/cover-0.webp"))
        let request = queues.decode(animation)
        // A callback request queued behind the stream ends only after the stream's frames are decoded.
        _ = queues.decode(animation, onFrame: { log.frame(1, $0) }, onEnd: { log.end(1, $0) })
        await log.waitForEnds(1)
        #expect(request.hasEnded)
        request.cancel()
        var iterator = request.frames.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(queues.statistics.peakHeldBytes > 0)
    }

    @Test func aStreamHoldsNoMoreThanTheBudget() async throws {
        let data = try Fixtures.data("webp/long-200.webp")
        let animation = try WebPAnimation(data: data)
        let budget = 3 * animation.canvasByteCount
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 2, memoryBudget: budget))
        let request = queues.decode(animation)
        let reference = try WebPAnimation(data: data)
        var seen = 0
        for try await frame in request.frames {
            // Decoding the reference frame here makes this reader slower than the decoder, which
            // would run far ahead without the budget.
            #expect(frame.rgba == (try reference.frame(at: frame.index).rgba), "frame \(frame.index)")
            #expect(frame.index == seen)
            seen += 1
            if seen == 30 { request.cancel() }
        }
        #expect(seen == 30)
        #expect(queues.statistics.peakHeldBytes <= budget)
        #expect(queues.statistics.peakHeldBytes >= 2 * animation.canvasByteCount, "it does decode ahead")
    }

    @Test func aBrokenFrameEndsTheStreamWithItsErrorAfterTheGoodOnes() async throws {
        var bytes = [UInt8](try Fixtures.data("webp/bench/cover-lossless.webp"))
        // Overwrite the entropy-coded data of frame 3's VP8L bitstream: the container and the
        // frame header still parse (libwebp's demuxer reads no further), the frame cannot decode.
        let chunks = (0..<(bytes.count - 4)).filter { bytes[$0..<$0 + 4].elementsEqual("VP8L".utf8) }
        try #require(chunks.count == 9)
        for offset in chunks[3] + 14..<chunks[3] + 78 { bytes[offset] = 0xFF }
        let animation = try WebPAnimation(data: Data(bytes))
        let queues = WebPDecodeQueues()
        var indices: [Int] = []
        // libwebp's own code is kept: 3 is VP8_STATUS_BITSTREAM_ERROR.
        await #expect(throws: WebPError.frameDecodingFailed(index: 3, status: 3)) {
            for try await frame in queues.decode(animation).frames { indices.append(frame.index) }
        }
        #expect(indices == [0, 1, 2])
    }

    /// CONTRIBUTING.md's one rule: a value outside its range is refused by name, not clamped
    /// (before, 0 decodes silently became 1 and a negative budget 0).
    @Test func aConfigurationOutOfRangeIsRefusedNamingTheField() throws {
        #expect(throws: WebPError.configurationOutOfRange(field: "maxConcurrentDecodes", value: "0", allowed: "1 or more")) {
            _ = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 0))
        }
        var configuration = WebPDecodeQueues.Configuration()
        configuration.memoryBudget = -1  // set after init: the queues' init still sees it
        #expect(throws: WebPError.configurationOutOfRange(field: "memoryBudget", value: "-1", allowed: "0 or more bytes")) {
            _ = try WebPDecodeQueues(configuration: configuration)
        }
        #expect(try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 1, memoryBudget: 0)).configuration.memoryBudget == 0)
        #expect(WebPDecodeQueues().configuration.maxConcurrentDecodes >= 1)
    }

    @Test func aTaskCancelledWhileWaitingCancelsItsRequest() async throws {
        let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: 1, memoryBudget: 0))
        let request = queues.decode(try WebPAnimation(data: Fixtures.data("webp/long-200.webp")))
        let reader = Task {
            var count = 0
            for try await _ in request.frames { count += 1 }
            return count
        }
        reader.cancel()
        let count = try await reader.value
        #expect(count < 200)
        #expect(request.hasEnded)
    }
}

@Suite("The first frame of a file still downloading")
struct ProgressiveFirstFrameTests {
    @Test(arguments: ["webp/bench/cover-lossy-0.webp", "webp/bench/cover-lossless.webp", "webp/muxed-alpha.webp", "webp/still-lossy.webp"])
    func appearsOnceItsBytesAreThereAndEqualsTheWholeFilesFirstFrame(file: String) throws {
        let data = try Fixtures.data(file)
        let whole = try WebPAnimation(data: data).frame(at: 0)
        var firstLength: Int?
        var length = 0
        while length <= data.count {
            if let frame = try WebPAnimation.firstFrame(ofPartialData: data.prefix(length)) {
                #expect(frame == whole, "prefix \(length)")
                if firstLength == nil { firstLength = length }
            } else {
                #expect(firstLength == nil, "prefix \(length) lost a frame an earlier prefix had")
            }
            // Every length through the headers, then finer than any chunk; sparser once found.
            length += firstLength != nil ? 4099 : length < 4096 ? 1 : 61
        }
        let needed = try #require(firstLength)
        if file.contains("bench/cover") {
            // Nine frames, the first of them whole: well under half of the file.
            #expect(needed < data.count / 2, "\(needed) of \(data.count) bytes")
        }
    }

    @Test func garbageAndHugeCanvasesAreRefusedEarly() throws {
        #expect(try WebPAnimation.firstFrame(ofPartialData: Data()) == nil)
        #expect(throws: WebPError.invalidContainer) { try WebPAnimation.firstFrame(ofPartialData: Data("RIFX\0\0\0\0WEBPVP8X".utf8)) }
        #expect(throws: WebPError.invalidContainer) { try WebPAnimation.firstFrame(ofPartialData: Data("RIFF\0\0\0\0WEBQ".utf8)) }
        #expect(try WebPAnimation.firstFrame(ofPartialData: Data("RIFF\0\0".utf8)) == nil, "a prefix of a header is not yet wrong")
        var bytes = [UInt8](try Fixtures.data("webp/muxed-alpha.webp").prefix(40))
        for (offset, value) in [(24, 16383), (27, 16383)] {
            for byte in 0..<3 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        #expect(throws: WebPError.canvasTooLarge(width: 16384, height: 16384, limit: WebPAnimation.defaultMaxCanvasPixels)) {
            try WebPAnimation.firstFrame(ofPartialData: Data(bytes))
        }
    }
}
