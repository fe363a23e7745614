import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation

/// `douyinkit-bench proxy` (issue 23): ffmpeg, a real player, through ``VideoProxyServer``
/// against ffmpeg reading the same bytes without it. One file of a short video's shape: 80 s of
/// 720×1280 H.264 at ~3 Mbit/s (`testsrc` with grain, so the encoder has bits to spend: ~30 MB),
/// faststart, no audio, on a loopback nginx. Every figure is interleaved pairs (baseline,
/// subject, …), the median of the pairwise ratios; each ffmpeg run is one process start to exit,
/// `-f null -` (decode, discard), as a player pays it.
///
/// (a) whole decode through a cold proxy (a new cache and server per run) against nginx
/// directly; (b) through a warm proxy against the file on disk; (c) the first decoded frame
/// (`-frames:v 1`) through a warm proxy against the file on disk; (d) 8 curl range readers at
/// once (1 MB ranges over keep-alive, each reading the whole file from its own starting
/// eighth) through a warm proxy, MB/s, against 8 `cat`s of the file at once, and against the
/// same readers from nginx.
enum ProxyBenchmark {
    static let mediaSeconds = 80
    static let readers = 8
    static let rangeBytes = 1 << 20

    static func run() async throws {
        // Skipped rather than thrown: a missing tool must not end the suites after this one.
        guard let ffmpeg = FFmpegMedia.binary, let curl = try? installed("curl") else {
            print("proxy: skipped: ffmpeg or curl not installed (scripts/install-deps.sh test installs both)")
            return
        }
        let nginx = try await NginxOrigin.start()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = nginx.root.appendingPathComponent("v.mp4")
        try await FFmpegMedia.make(FFmpegMedia.testSource(seconds: mediaSeconds, size: "720x1280", bitRate: 3_000_000)
            + ["-vf", "noise=alls=8:allf=t", "-movflags", "+faststart", file.path])
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        let origin = nginx.url("/v.mp4")
        print("proxy: \(mediaSeconds) s of 720×1280 H.264, \(fixed(Double(size) / 1e6, 1)) MB (\(fixed(Double(size) * 8 / Double(mediaSeconds) / 1e6)) Mbit/s), "
            + "faststart, on loopback nginx; ffmpeg \(decodeArguments("INPUT").joined(separator: " ")); interleaved pairs")

        // A decode through the proxy equals the file's, once, before anything is timed.
        let warm = VideoProxyServer(cache: try VideoCache(directory: scratch.appendingPathComponent("warm"), sizeLimit: 1 << 30))
        try warm.start()
        let proxied = warm.url(for: origin)!.absoluteString
        let reference = try await FFmpegMedia.framemd5(file.path)
        guard try await FFmpegMedia.framemd5(proxied) == reference else { throw FFmpegMedia.Failure(description: "the proxy's decode differs from the file's") }
        print("  check: ffmpeg's framemd5 through the proxy equals the file's (\(reference.count) frames)")

        try await coldDecode(ffmpeg, origin: origin, scratch: scratch)
        let fetched = warm.cache.statistics.originBytes
        try await warmDecode(ffmpeg, file: file, proxied: proxied)
        try await firstFrame(ffmpeg, file: file, proxied: proxied)
        try await rangeReaders(curl, file: file, proxied: proxied, direct: origin.absoluteString, size: size)
        precondition(warm.cache.statistics.originBytes == fetched, "the warm proxy went to the origin")
        await warm.stop()
    }

    /// ffmpeg's arguments for a whole decode of `input`'s video, output discarded.
    static func decodeArguments(_ input: String, frames: Int? = nil) -> [String] {
        ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", input, "-map", "0:v:0"]
            + (frames.map { ["-frames:v", String($0)] } ?? []) + ["-f", "null", "-"]
    }

    /// (a) A cold proxy (new cache and server each run, their start and stop untimed) against
    /// ffmpeg reading nginx itself.
    static func coldDecode(_ ffmpeg: String, origin: URL, scratch: URL) async throws {
        var run = 0
        let comparison = try await interleavedPairs(baseline: {
            try await timedRun(ffmpeg, decodeArguments(origin.absoluteString))
        }, subject: {
            run += 1
            let directory = scratch.appendingPathComponent("cold\(run)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = VideoProxyServer(cache: try VideoCache(directory: directory, sizeLimit: 1 << 30))
            try server.start()
            let time = try await timedRun(ffmpeg, decodeArguments(server.url(for: origin)!.absoluteString))
            await server.stop()
            precondition(server.statistics.bytesFromOrigin > 0, "a cold run served nothing from the origin")
            return time
        })
        print("  (a) whole decode, cold proxy: ffmpeg from nginx (baseline) median \(ms(comparison.medianBaseline)) | through the proxy median \(ms(comparison.medianSubject))")
        print("      time proxy / nginx: \(comparison.summary(.time, target: 1.10))")
    }

    /// (b) A warm proxy against ffmpeg reading the file from disk (the page cache: both sides
    /// read bytes the kernel holds).
    static func warmDecode(_ ffmpeg: String, file: URL, proxied: String) async throws {
        let comparison = try await interleavedPairs(baseline: {
            try await timedRun(ffmpeg, decodeArguments(file.path))
        }, subject: {
            try await timedRun(ffmpeg, decodeArguments(proxied))
        })
        print("  (b) whole decode, warm proxy: ffmpeg from the file (baseline) median \(ms(comparison.medianBaseline)) | through the proxy median \(ms(comparison.medianSubject))")
        print("      time proxy / file: \(comparison.summary(.time, target: 1.20))")
    }

    /// (c) The first decoded frame, process start to exit, warm proxy against the file.
    static func firstFrame(_ ffmpeg: String, file: URL, proxied: String) async throws {
        let comparison = try await interleavedPairs(pairs: 15, baseline: {
            try await timedRun(ffmpeg, decodeArguments(file.path, frames: 1))
        }, subject: {
            try await timedRun(ffmpeg, decodeArguments(proxied, frames: 1))
        })
        print("  (c) first decoded frame, warm proxy: ffmpeg from the file (baseline) median \(ms(comparison.medianBaseline)) | through the proxy median \(ms(comparison.medianSubject))")
        print("      time proxy / file: \(comparison.summary(.time, target: 1.50))")
        // How much of either side is ffmpeg starting at all (loading its libraries), which no
        // proxy can shorten: `ffmpeg -version` paired with the file's first frame.
        let start = try await interleavedPairs(pairs: 15, baseline: {
            try await timedRun(ffmpeg, ["-hide_banner", "-version"])
        }, subject: {
            try await timedRun(ffmpeg, decodeArguments(file.path, frames: 1))
        })
        print("      of which ffmpeg's start alone (`ffmpeg -version`) median \(ms(start.medianBaseline)) "
            + "against the file's first frame median \(ms(start.medianSubject)) in the same pairs")
    }

    static func ms(_ seconds: Double) -> String { "\(fixed(seconds * 1000, 1)) ms" }
}
