import CWebP
import DouyinKit
import DouyinSupport
import Foundation

/// Compositing every frame through WebPAnimation against libwebp's own WebPAnimDecoder loop.
enum WebPBenchmark {
    /// `douyinkit-bench webp-queues`: (b) and (c) alone, the figures of the decode queues.
    static func queuesOnly() async throws {
        let folder = fixtureURL("webp/bench")
        let lossy = try (0..<4).map { try Data(contentsOf: folder.appendingPathComponent("cover-lossy-\($0).webp")) }
        try await firstFrames(of: lossy)
        try await twoCores(grid: lossy)
    }

    static func run() async throws {
        let folder = fixtureURL("webp/bench")
        let lossy = try (0..<4).map { try Data(contentsOf: folder.appendingPathComponent("cover-lossy-\($0).webp")) }
        let lossless = try Data(contentsOf: folder.appendingPathComponent("cover-lossless.webp"))
        let lowAlpha = try ["lossy", "lossless", "img2webp"].map { try Data(contentsOf: fixtureURL("webp/low-alpha-\($0).webp")) }
        print("webp (a): every frame, one thread, interleaved pairs, each alpha mode against WebPAnimDecoder in the same mode")
        for mode in [WebPAlphaMode.premultiplied, .straight] {
            try allFrames(of: lossy, label: "4 lossy 360×640 covers × 5, \(mode)", rounds: 5, mode: mode)
            try allFrames(of: [lossless], label: "1 lossless 360×640 cover × 10, \(mode)", rounds: 10, mode: mode)
            try allFrames(of: lowAlpha, label: "3 low-alpha 48×40 animations × 200, \(mode)", rounds: 200, mode: mode)
        }
        try await firstFrames(of: lossy)
        try await twoCores(grid: lossy)
        try await longAnimation(try Data(contentsOf: fixtureURL("webp/long-200.webp")))
    }

    /// (b) Time until all 24 first frames are out, through the queues, against decoding the
    /// 24 first frames one after another on one thread; beside it the machine's floor, the
    /// same loop on one thread a core.
    static func firstFrames(of covers: [Data]) async throws {
        let files = (0..<24).map { covers[$0 % covers.count] }
        var meanLatencies: [Double] = []
        // 31 pairs: a pair takes ~50 ms, and with 7 the median swung 0.61-0.84× between runs
        // of one binary.
        let comparison = try await interleavedPairs(pairs: 31, baseline: {
            try timed { for data in files { blackHole(try WebPAnimation(data: data).frame(at: 0)) } }
        }, subject: {
            let animations = try files.map { try WebPAnimation(data: $0) }
            let queues = WebPDecodeQueues()
            let start = ContinuousClock.now
            let latencies = try await withThrowingTaskGroup(of: Double.self) { group in
                for request in queues.decode(animations) {
                    group.addTask {
                        var iterator = request.frames.makeAsyncIterator()
                        _ = try await iterator.next()
                        let latency = seconds(ContinuousClock.now - start)
                        request.cancel()
                        return latency
                    }
                }
                return try await group.reduce(into: [Double]()) { $0.append($1) }
            }
            meanLatencies.append(latencies.reduce(0, +) / Double(latencies.count))
            return latencies.max() ?? 0
        })
        // The machine's own floor for the ratio: the same loop, each thread taking the next
        // file from a shared counter, no queues. What the queues miss of it is theirs; what it
        // misses of 1 / cores is the machine's (two decoders sharing caches and memory).
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let floor = try interleavedPairs(pairs: 31, baseline: {
            try timed { for data in files { blackHole(try WebPAnimation(data: data).frame(at: 0)) } }
        }, subject: {
            let next = LockedBox(0)
            let failure = LockedBox<(any Error)?>(nil)
            let elapsed = timed {
                DispatchQueue.concurrentPerform(iterations: cores) { _ in
                    while true {
                        let index = next.withLock { taken in
                            defer { taken += 1 }
                            return taken
                        }
                        guard index < files.count else { return }
                        do {
                            blackHole(try WebPAnimation(data: files[index]).frame(at: 0))
                        } catch {
                            failure.withLock { $0 = error }
                        }
                    }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            return elapsed
        })
        print("webp (b): first frames of 24 360×640 lossy covers requested at once, interleaved pairs")
        print("  one after another (baseline) median \(fixed(comparison.medianBaseline * 1000)) ms | WebPDecodeQueues, last first frame"
            + " median \(fixed(comparison.medianSubject * 1000)) ms (mean cell \(fixed(median(meanLatencies) * 1000)) ms)"
            + " | time \(comparison.summary(.time, target: 0.55))")
        print("  the machine's floor, the loop over \(cores) threads taking turns (no queues): median \(fixed(floor.medianSubject * 1000)) ms"
            + " vs one after another \(fixed(floor.medianBaseline * 1000)) ms | time \(floor.summary(.time))")
    }

    /// (c) All frames of 24 covers: a plain loop on one thread against the queues with one
    /// decode at a time (their overhead) and with one a core (the speed-up).
    static func twoCores(grid covers: [Data]) async throws {
        let files = (0..<24).map { covers[$0 % covers.count] }
        func loop() throws -> Double {
            try timed {
                for data in files {
                    let animation = try WebPAnimation(data: data)
                    for index in animation.frames.indices { blackHole(try animation.frame(at: index)) }
                }
            }
        }
        func queues(concurrency: Int) async throws -> Double {
            let animations = try files.map { try WebPAnimation(data: $0) }
            let queues = try WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: concurrency))
            let start = ContinuousClock.now
            let ended = EndCounter(expected: animations.count)
            _ = queues.decode(animations, onFrame: { blackHole($1) }, onEnd: { _, _ in ended.one() })
            await ended.all()
            return seconds(ContinuousClock.now - start)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // The machine's own ceiling for the speed-up: the plain loop split over one thread a
        // core, no queues at all. What the queues miss of it is theirs; what it misses of
        // `cores`× is the machine's (shared caches, memory, other load).
        func loops() throws -> Double {
            let shares = (0..<cores).map { core in files.indices.filter { $0 % cores == core }.map { files[$0] } }
            let failure = LockedBox<(any Error)?>(nil)
            let elapsed = timed {
                DispatchQueue.concurrentPerform(iterations: cores) { core in
                    do {
                        for data in shares[core] {
                            let animation = try WebPAnimation(data: data)
                            for index in animation.frames.indices { blackHole(try animation.frame(at: index)) }
                        }
                    } catch {
                        failure.withLock { $0 = error }
                    }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            return elapsed
        }
        let ceiling = try interleavedPairs(pairs: 7, baseline: loop, subject: loops)
        let one = try await interleavedPairs(pairs: 7, baseline: loop, subject: { try await queues(concurrency: 1) })
        let all = try await interleavedPairs(pairs: 7, baseline: loop, subject: { try await queues(concurrency: cores) })
        print("webp (c): every frame of 24 360×640 lossy covers, interleaved pairs against a plain loop on one thread")
        print("  queues, 1 decode at a time: median \(fixed(one.medianSubject * 1000)) ms vs loop \(fixed(one.medianBaseline * 1000)) ms"
            + " | time \(one.summary(.time))")
        print("  queues, \(cores) at a time: median \(fixed(all.medianSubject * 1000)) ms vs loop \(fixed(all.medianBaseline * 1000)) ms"
            + " | speed-up \(all.summary(.speedup, target: 1.90))")
        print("  the machine's ceiling, the plain loop split over \(cores) threads (no queues): median \(fixed(ceiling.medianSubject * 1000)) ms"
            + " vs loop \(fixed(ceiling.medianBaseline * 1000)) ms | speed-up \(ceiling.summary(.speedup))")
    }

    /// (d) Peak memory playing a 200-frame animation through a stream with a 16 MB budget,
    /// against holding every decoded frame: growth of the peak resident size over the start
    /// of each run, interleaved.
    static func longAnimation(_ data: Data) async throws {
        let animation = try WebPAnimation(data: data)
        let budget = 16 << 20
        var played = 0
        var held = 0
        let comparison = try await interleavedPairs(pairs: 7, baseline: {
            ResidentMemory.resetPeak()
            let before = ResidentMemory.current
            var frames: [WebPCanvasFrame] = []
            for index in animation.frames.indices { frames.append(try animation.frame(at: index)) }
            let growth = ResidentMemory.peak - before
            blackHole(frames)
            return Double(growth)
        }, subject: {
            let queues = try WebPDecodeQueues(configuration: .init(memoryBudget: budget))
            let playing = try WebPAnimation(data: data)
            ResidentMemory.resetPeak()
            let before = ResidentMemory.current
            played = 0
            for try await frame in queues.decode(playing).frames {
                blackHole(frame)
                played += 1
                // A display a few times faster than real time: the decoder gets ahead of it.
                try await Task.sleep(for: .milliseconds(2))
            }
            held = max(held, queues.statistics.peakHeldBytes)
            return Double(ResidentMemory.peak - before)
        })
        let mb = { (bytes: Double) in fixed(bytes / 1_048_576, 1) }
        print("webp (d): \(played) frames of \(animation.canvasWidth)×\(animation.canvasHeight) (\(mb(Double(animation.canvasByteCount))) MB each), 16 MB budget, interleaved pairs")
        print("  holding every frame (baseline): median peak RSS +\(mb(comparison.medianBaseline)) MB | stream: median peak RSS"
            + " +\(mb(comparison.medianSubject)) MB, frames held at most \(mb(Double(held))) MB | memory \(comparison.summary(.time))")
    }

    /// (a) One thread: WebPAnimation against a WebPAnimDecoder loop over the same bytes.
    static func allFrames(of covers: [Data], label: String, rounds: Int, mode: WebPAlphaMode) throws {
        var frames = 0
        let comparison = try interleavedPairs(
            pairs: 7,
            baseline: {
                timed {
                    frames = 0
                    for _ in 0..<rounds { for data in covers { frames += decodeWithAnimDecoder(data, mode: mode) } }
                }
            },
            subject: {
                try timed {
                    for _ in 0..<rounds {
                        for data in covers {
                            let animation = try WebPAnimation(data: data, alphaMode: mode)
                            for index in animation.frames.indices { blackHole(try animation.frame(at: index)) }
                        }
                    }
                }
            }
        )
        let ours = comparison.medianSubject
        print("  \(label): WebPAnimDecoder loop (baseline) median \(fixed(comparison.medianBaseline * 1000)) ms"
            + " | WebPAnimation median \(fixed(ours * 1000)) ms (\(fixed(Double(frames) / ours, 0)) frames/s)"
            + " | time \(comparison.summary(.time, target: 1.10))")
    }

    /// Decodes every frame with libwebp's animation decoder in MODE_rgbA (premultiplied) or
    /// MODE_RGBA (straight); returns the frame count.
    static func decodeWithAnimDecoder(_ data: Data, mode: WebPAlphaMode = .premultiplied) -> Int {
        data.withUnsafeBytes { raw in
            var input = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return 0 }
            options.color_mode = mode == .premultiplied ? MODE_rgbA : MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&input, &options) else { return 0 }
            defer { WebPAnimDecoderDelete(decoder) }
            var count = 0
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0 {
                count += 1
            }
            return count
        }
    }
}

/// Counts callback requests' ends; `all()` returns once every one has ended.
final class EndCounter: Sendable {
    private let state: LockedBox<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(expected: Int) {
        state = LockedBox((expected, nil))
    }

    func one() {
        let done = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        done?.resume()
    }

    func all() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.remaining == 0 { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// The process's resident memory from /proc (Linux); zeros elsewhere.
enum ResidentMemory {
    /// Bytes resident now.
    static var current: Int { field("VmRSS:") }
    /// The most bytes resident since the last reset.
    static var peak: Int { field("VmHWM:") }

    /// Starts a new peak (writing 5 to clear_refs resets VmHWM), after handing memory freed
    /// by earlier runs back to the system: malloc keeps it otherwise, and a later run that
    /// reuses it would show almost no growth.
    static func resetPeak() {
        #if canImport(Glibc)
        // malloc_trim is glibc's (malloc.h, which the Glibc module leaves out): looked up at run time.
        if let symbol = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        #endif
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
    duration.inSeconds
}
