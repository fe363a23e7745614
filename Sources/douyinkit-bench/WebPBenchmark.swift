import CWebP
import DouyinKit
import Foundation

/// Compositing every frame through WebPAnimation against libwebp's own WebPAnimDecoder loop.
enum WebPBenchmark {
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
    /// 24 first frames one after another on one thread.
    static func firstFrames(of covers: [Data]) async throws {
        let files = (0..<24).map { covers[$0 % covers.count] }
        let sequential = try bestTime(runs: 5) {
            for data in files { blackHole(try WebPAnimation(data: data).frame(at: 0)) }
        }
        var best = Double.infinity
        var meanLatency = 0.0
        for _ in 0..<5 {
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
            let last = latencies.max() ?? 0
            if last < best {
                best = last
                meanLatency = latencies.reduce(0, +) / Double(latencies.count)
            }
        }
        print("webp (b): first frames of 24 360×640 lossy covers requested at once, best of 5")
        print("  one after another (baseline) \(fixed(sequential * 1000)) ms | WebPDecodeQueues, last first frame at \(fixed(best * 1000)) ms"
            + " (mean \(fixed(meanLatency * 1000)) ms) | time ratio \(fixed(best / sequential))× (target ≤ 1.00×)")
    }

    /// (c) All frames of 24 covers through the queues with one decode at a time, then with one a core.
    static func twoCores(grid covers: [Data]) async throws {
        let files = (0..<24).map { covers[$0 % covers.count] }
        func decodeAll(concurrency: Int) async throws -> Double {
            var best = Double.infinity
            for _ in 0..<3 {
                let animations = try files.map { try WebPAnimation(data: $0) }
                let queues = WebPDecodeQueues(configuration: .init(maxConcurrentDecodes: concurrency))
                let start = ContinuousClock.now
                let ended = EndCounter(expected: animations.count)
                _ = queues.decode(animations, onFrame: { blackHole($1) }, onEnd: { _, _ in ended.one() })
                await ended.all()
                best = min(best, seconds(ContinuousClock.now - start))
            }
            return best
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let loop = try bestTime(runs: 3) {
            for data in files {
                let animation = try WebPAnimation(data: data)
                for index in animation.frames.indices { blackHole(try animation.frame(at: index)) }
            }
        }
        let one = try await decodeAll(concurrency: 1)
        let all = try await decodeAll(concurrency: cores)
        print("webp (c): every frame of 24 360×640 lossy covers, best of 3")
        print("  plain loop on one thread (baseline) \(fixed(loop * 1000)) ms | queues, 1 decode at a time \(fixed(one * 1000)) ms"
            + " | queues, \(cores) at a time \(fixed(all * 1000)) ms | speed-up \(fixed(loop / all))× (target ≥ 1.70× on 2 cores)")
    }

    /// (d) Peak memory playing a 200-frame animation through a stream with a 16 MB budget,
    /// against holding every decoded frame.
    static func longAnimation(_ data: Data) async throws {
        let animation = try WebPAnimation(data: data)
        let budget = 16 << 20
        ResidentMemory.resetPeak()
        let before = ResidentMemory.current
        var held: [WebPCanvasFrame] = []
        for index in animation.frames.indices { held.append(try animation.frame(at: index)) }
        let holdAll = ResidentMemory.peak - before
        held = []

        let queues = WebPDecodeQueues(configuration: .init(memoryBudget: budget))
        let playing = try WebPAnimation(data: data)
        ResidentMemory.resetPeak()
        let start = ResidentMemory.current
        var played = 0
        for try await frame in queues.decode(playing).frames {
            blackHole(frame)
            played += 1
            // A display a few times faster than real time: the decoder gets ahead of it.
            try await Task.sleep(for: .milliseconds(2))
        }
        let streamed = ResidentMemory.peak - start
        let mb = { (bytes: Int) in fixed(Double(bytes) / 1_048_576, 1) }
        print("webp (d): \(played) frames of \(animation.canvasWidth)×\(animation.canvasHeight) (\(mb(animation.canvasByteCount)) MB each), 16 MB budget")
        print("  holding every frame (baseline): peak RSS +\(mb(holdAll)) MB | stream: peak RSS +\(mb(streamed)) MB,"
            + " frames held at most \(mb(queues.statistics.peakHeldBytes)) MB")
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
final class EndCounter: @unchecked Sendable {
    // @unchecked Sendable: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var remaining: Int
    private var waiter: CheckedContinuation<Void, Never>?

    init(expected: Int) {
        remaining = expected
    }

    func one() {
        let done = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            remaining -= 1
            guard remaining == 0 else { return nil }
            defer { waiter = nil }
            return waiter
        }
        done?.resume()
    }

    func all() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if remaining == 0 { return true }
                waiter = continuation
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

    /// Starts a new peak (writing 5 to clear_refs resets VmHWM).
    static func resetPeak() {
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
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}
