import DouyinBackendLauncher
import DouyinSupport
import DouyinKit
import DouyinTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `douyinkit-bench proxy-idle` (issue 37): what 1,000 idle connections cost the proxy. Absolute
/// figures of the proxy's own process (the clients are a Python child, the origin nginx):
/// CPU time over a 10 s hold (`getrusage`, user + system, as a share of one core), resident
/// memory growth from before the first connection to the end of the hold, how many the proxy
/// still holds after it, and whether the next request is answered right. Two kinds: silent
/// connections (never a byte sent) and keep-alive connections idle after one answered request.
extension ProxyBenchmark {
    static let idleConnections = 1000
    static let idleHold: Duration = .seconds(10)

    static func idle() async throws {
        guard let (curl, nginx, scratch) = try await curlSuite("proxy-idle") else { return }
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(at: scratch)
        }
        var generator = SeededRandom(seed: 0x1D1E)
        let file = Data((0..<1_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try nginx.serve(file, at: "/idle.mp4")
        let server = VideoProxyServer(cache: try VideoCache(directory: scratch, sizeLimit: 1 << 30))
        try server.start()
        let url = server.url(for: nginx.url("/idle.mp4"))!
        // Warm: the first request fetches the whole file, so the hold measures the proxy alone.
        guard try await fetch(curl, url, range: nil) == file else { throw FFmpegMedia.Failure(description: "the warm-up read differs from the file") }
        let configuration = VideoProxyServer.Configuration()
        print("proxy-idle: \(idleConnections) connections held \(idleHold) by a Python child; proxy configuration: at most "
            + "\(configuration.maxConnections) connections, idle timeout \(configuration.idleTimeout) (silent ones included); "
            + "CPU and RSS of the proxy's process")
        for path in [nil, url.path(percentEncoded: true)] {
            try await hold(server, port: server.port!, path: path)
            let answer = try await fetch(curl, url, range: 1000...200_999)
            print("      the next request: \(answer == file.subdata(in: 1000..<201_000) ? "answered right" : "WRONG ANSWER") (206, 200,000 bytes)")
        }
        await server.stop()
    }

    /// Opens the connections (silent, or each after one request of `path`), holds them, and
    /// prints what the hold cost.
    private static func hold(_ server: VideoProxyServer, port: Int, path: String?) async throws {
        ResidentMemory.resetPeak()
        let before = ResidentMemory.current
        let cpuBeforeOpening = processCPUSeconds()
        let process = Process()
        let input = Pipe(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("scripts/servers/idle_clients.py").path,
                             String(port), String(idleConnections)] + (path.map { [$0] } ?? [])
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        let end = try await process.start()
        let line = try await onOwnThread { [output] in output.firstLine() }
        guard line == "connected \(idleConnections)\n" else {
            await stopServer(process, end: end, input: input)
            throw FFmpegMedia.Failure(description: "idle clients: \(line.debugDescription)")
        }
        let opened = ContinuousClock.now
        let cpuOpened = processCPUSeconds()
        try await Task.sleep(until: opened + idleHold)
        let cpuHeld = processCPUSeconds()
        let held = ContinuousClock.now - opened
        let growth = ResidentMemory.current - before
        let peak = ResidentMemory.peak - before
        let open = server.statistics.openConnections
        input.fileHandleForWriting.write(Data("count-open\n".utf8))
        let stillOpen = try await onOwnThread { [output] in output.firstLine() }.trimmingCharacters(in: .whitespacesAndNewlines)
        await stopServer(process, end: end, input: input)
        let kind = path == nil ? "silent (nothing sent)" : "keep-alive, idle after one 1,000-byte answer each"
        print("  \(idleConnections) \(kind): opening \(fixed(cpuOpened - cpuBeforeOpening, 3)) s of CPU; over the hold "
            + "\(fixed(cpuHeld - cpuOpened, 3)) s of CPU in \(fixed(held.inSeconds, 1)) s = \(fixed((cpuHeld - cpuOpened) / held.inSeconds * 100, 2)) % of a core "
            + "(target ≤ 1 %)")
        print("      RSS +\(fixed(Double(growth) / 1_048_576, 1)) MB at the end of the hold, peak +\(fixed(Double(peak) / 1_048_576, 1)) MB (target ≤ 64 MB); "
            + "the proxy holds \(open) connections, the clients see \(stillOpen)")
    }

    /// The body of one curl GET of `url` (a `Range` when `range` is given).
    private static func fetch(_ curl: String, _ url: URL, range: ClosedRange<Int>?) async throws -> Data {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        _ = try await timedRun(curl, ["-sS", "--fail", "--http1.1", "-o", target.path] + (range.map { ["-r", "\($0.lowerBound)-\($0.upperBound)"] } ?? []) + [url.absoluteString])
        return try Data(contentsOf: target)
    }

    /// User + system CPU seconds of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
