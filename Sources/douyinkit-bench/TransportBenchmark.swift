import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP transport seam's own costs: libcurl's multi interface (Linux's default) beside
/// FoundationNetworking's URLSession and the `curl` command-line tool, each a median of
/// interleaved pairs. CPU is this process's user + system time (getrusage), or the child's for
/// the `curl` tool.
enum TransportBenchmark {
    /// Seconds a held answer or a trickle lasts (the issue names 20 s; 5 by default keeps the
    /// suite to a few minutes, and the cost per second is what is compared).
    static let waitSeconds = Int(ProcessInfo.processInfo.environment["DOUYIN_BENCH_WAIT_SECONDS"] ?? "") ?? 5

    static func run() async throws {
        print("transport: libcurl multi (CurlTransport) vs URLSession (FoundationNetworking) vs the curl tool; interleaved pairs")
        let slow = try SlowOrigin()
        defer { slow.stop() }
        let curl = CurlTransport(configuration: .init(maximumConnectionsPerHost: 0))
        let session = URLSessionConfiguration.ephemeral
        session.httpMaximumConnectionsPerHost = 200
        let urlSession = URLSessionTransport(configuration: session)
        try await heldAnswer(slow, curl: curl, urlSession: urlSession)
        try await trickle(slow, curl: curl, urlSession: urlSession)
        let nginx = try await NginxOrigin.start()
        let body = patterned(64 << 20)
        try nginx.serve(body, at: "/64.bin")
        try nginx.serve(body.prefix(32 << 20), at: "/32.mp4")
        try await fullSpeed(nginx.url("/64.bin"), bytes: body.count, curl: curl, urlSession: urlSession)
        try await coldVideo(nginx.url("/32.mp4"), bytes: 32 << 20)
        try await hundredAtOnce(slow, curl: curl, urlSession: urlSession)
    }

    /// (c) alone (`douyinkit-bench transport-cold`). With `DOUYIN_BENCH_PROFILE_LOOPS=N` it
    /// runs only the libcurl cache read, N times (for `perf record`, which then sees nothing
    /// else), and prints the median time and this process's CPU (user + system, every thread)
    /// a read; with `DOUYIN_BENCH_PROFILE_STREAMED=1` too, the streamed read.
    static func coldOnly() async throws {
        print("transport (c) alone: a cold 32 MB read through the video cache; interleaved pairs")
        let nginx = try await NginxOrigin.start()
        let body = patterned(32 << 20)
        try nginx.serve(body, at: "/32.mp4")
        if let loops = Int(ProcessInfo.processInfo.environment["DOUYIN_BENCH_PROFILE_LOOPS"] ?? "") {
            let url = nginx.url("/32.mp4")
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-profile-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var times: [Double] = [], processor: [Double] = []
            // Read once, outside the timed reads.
            let streamed = ProcessInfo.processInfo.environment["DOUYIN_BENCH_PROFILE_STREAMED"] == "1"
            for run in 0..<loops {
                let directory = scratch.appendingPathComponent("\(run)")
                let reader = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: HTTPOrigin()).reader(for: url)
                let before = cpuSeconds()
                times.append(try await timed {
                    if streamed {
                        for try await chunk in reader.chunks(0..<Int64(32 << 20)) { blackHole(chunk) }
                    } else {
                        _ = try await reader.read(0..<Int64(32 << 20))
                    }
                })
                processor.append(cpuSeconds() - before)
                reader.close()
                try? FileManager.default.removeItem(at: directory)  // see coldVideo
            }
            print("  libcurl origin alone: median \(ms(median(times))), this process's CPU a read median \(ms(median(processor)))")
            return
        }
        try await coldVideo(nginx.url("/32.mp4"), bytes: 32 << 20)
    }

    /// `count` bytes of a fixed arithmetic pattern, the same in every run (what nginx serves here).
    static func patterned(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })
    }

    /// (a) CPU while a loopback server holds the request unanswered.
    static func heldAnswer(_ slow: SlowOrigin, curl: CurlTransport, urlSession: URLSessionTransport) async throws {
        let url = slow.url("/hold/\(waitSeconds)/a")
        let comparison = try await interleavedPairs(pairs: 7, baseline: {
            try await cpu { _ = try await fetch(url, over: urlSession) }
        }, subject: {
            try await cpu { _ = try await fetch(url, over: curl) }
        })
        print("  (a) answer held \(waitSeconds) s: URLSession CPU median \(percent(comparison.medianBaseline)) of a core | libcurl \(percent(comparison.medianSubject))")
        print("      CPU libcurl / URLSession: \(comparison.summary(.time))")
    }

    /// (b) CPU per MB of a body trickling 1 KB every 0.5 s, against the curl tool.
    static func trickle(_ slow: SlowOrigin, curl: CurlTransport, urlSession: URLSessionTransport) async throws {
        let url = slow.url("/trickle/b")
        let seconds = Duration.seconds(waitSeconds)
        var tool: [Double] = []
        let comparison = try await interleavedPairs(pairs: 7, baseline: {
            try await cpuPerMB { try await stream(url, over: urlSession, for: seconds) }
        }, subject: {
            tool.append(try await curlToolCPUPerMB(url, seconds: waitSeconds))
            return try await cpuPerMB { try await stream(url, over: curl, for: seconds) }
        })
        print("  (b) 1 KB / 0.5 s trickle for \(waitSeconds) s, CPU s per MB: URLSession median \(fixed(comparison.medianBaseline, 3))"
            + " | libcurl \(fixed(comparison.medianSubject, 3)) | curl tool \(fixed(median(tool), 3))")
        print("      CPU libcurl / URLSession: \(comparison.summary(.time))")
    }

    /// (b) CPU per MB of a full-speed 64 MB download from nginx, against the curl tool.
    static func fullSpeed(_ url: URL, bytes: Int, curl: CurlTransport, urlSession: URLSessionTransport) async throws {
        var tool: [Double] = []
        var times = PairedComparison()
        let comparison = try await interleavedPairs(pairs: 7, baseline: {
            try await cpuPerMB {
                let start = ContinuousClock.now
                let count = try await fetch(url, over: urlSession)
                times.baseline.append(seconds(ContinuousClock.now - start))
                precondition(count == bytes)
                return count
            }
        }, subject: {
            tool.append(try await curlToolCPUPerMB(url, seconds: nil))
            return try await cpuPerMB {
                let start = ContinuousClock.now
                let count = try await fetch(url, over: curl)
                times.subject.append(seconds(ContinuousClock.now - start))
                precondition(count == bytes)
                return count
            }
        })
        print("  (b) 64 MB from nginx, CPU s per MB: URLSession median \(fixed(comparison.medianBaseline, 4)) | libcurl \(fixed(comparison.medianSubject, 4)) | curl tool \(fixed(median(tool), 4))")
        print("      CPU libcurl / URLSession: \(comparison.summary(.time)); wall libcurl / URLSession: \(times.summary(.time))")
    }

    /// (c) A cold 32 MB read through the video cache: on libcurl (today's default) against the
    /// URLSession origin (the default before) and against the curl tool's download.
    static func coldVideo(_ url: URL, bytes: Int) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-transport-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var run = 0
        /// One cold read: into one `Data` of the whole range (`read`), or, `streamed`, as the
        /// reader's chunks, each counted and dropped (a player's way, and the curl tool's to
        /// `/dev/null`: no 32 MB buffer made, whose first touch alone is ~18 ms of page faults here).
        func read(_ origin: any VideoOrigin, streamed: Bool = false) async throws -> Double {
            run += 1
            let directory = scratch.appendingPathComponent("\(run)")
            let reader = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: origin).reader(for: url)
            defer {
                reader.close()
                // Each run's files go before the next run, as the curl tool's do: in a memory
                // cgroup (this sandbox's), once ~500 MB of earlier runs' page cache is kept every
                // new page of a write costs ~10× (reclaim), so each pair measured how many
                // pairs ran before it (a 32 MB write: 7-12 ms with none kept, 77-107 ms past it).
                try? FileManager.default.removeItem(at: directory)
            }
            return try await timed {
                var count = 0
                if streamed {
                    for try await chunk in reader.chunks(0..<Int64(bytes)) { count += chunk.count }
                } else {
                    count = try await reader.read(0..<Int64(bytes)).count
                }
                precondition(count == bytes)
            }
        }
        var tool: [Double] = [], toolToFile: [Double] = [], disk: [Double] = [], streamed: [Double] = [], transportAlone: [Double] = []
        let curl = CurlTransport()
        let sample = Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        // 15 pairs (~0.3 s each): with 7 the medians against the tool swung 0.79-0.97× between runs.
        let comparison = try await interleavedPairs(pairs: 15, baseline: {
            try await read(URLSessionOrigin())
        }, subject: {
            tool.append(try await curlToolSeconds(url))
            toolToFile.append(try await curlToolSeconds(url, storingIn: scratch))
            disk.append(try fileRoundTrip(sample, in: scratch))
            streamed.append(try await read(HTTPOrigin(), streamed: true))
            transportAlone.append(try await timed {
                let count = try await fetch(url, over: curl)
                precondition(count == bytes)
            })
            return try await read(HTTPOrigin())
        })
        let toolRatios = zip(tool, comparison.subject).map { $0 / $1 }
        let streamedRatios = zip(tool, streamed).map { $0 / $1 }
        let toFileRatios = zip(toolToFile, comparison.subject).map { $0 / $1 }
        let transportRatios = zip(tool, transportAlone).map { $0 / $1 }
        print("  (c) cold 32 MB through the cache: URLSession origin median \(ms(comparison.medianBaseline)) | libcurl origin \(ms(comparison.medianSubject)) | curl tool download \(ms(median(tool)))")
        print("      throughput libcurl / URLSession origin: \(comparison.summary(.speedup, target: 1.0))")
        print("      throughput cache / curl tool: median \(fixed(median(toolRatios)))× (min \(fixed(toolRatios.min() ?? .nan))×, max \(fixed(toolRatios.max() ?? .nan))×; target ≥ 0.90×)")
        print("      streamed (the reader's chunks counted and dropped, as the tool's body; \(ms(median(streamed)))): throughput cache / curl tool"
            + " median \(fixed(median(streamedRatios)))× (min \(fixed(streamedRatios.min() ?? .nan))×, max \(fixed(streamedRatios.max() ?? .nan))×; target ≥ 0.90×)")
        print("      throughput cache / curl tool storing the body in a new file beside the cache's (`-o`, \(ms(median(toolToFile)))):"
            + " median \(fixed(median(toFileRatios)))× (min \(fixed(toFileRatios.min() ?? .nan))×, max \(fixed(toFileRatios.max() ?? .nan))×)")
        print("      the transport alone (libcurl, its chunks counted and dropped, no cache; \(ms(median(transportAlone)))): throughput / curl tool"
            + " median \(fixed(median(transportRatios)))× (min \(fixed(transportRatios.min() ?? .nan))×, max \(fixed(transportRatios.max() ?? .nan))×)")
        print("      the disk's share: writing the 32 MB to a new file in 16 KB pieces and reading them back in 1 MB pieces alone takes \(ms(median(disk)))"
            + " (the least a cache that stores every byte before a reader gets it adds to a download)")
    }

    /// Seconds to write `data` to a new file under `folder` in 16 KB pieces (a transport's
    /// reads) and read it back in 1 MB pieces (a collecting read's wakes), then remove it.
    static func fileRoundTrip(_ data: Data, in folder: URL) throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("round-trip-\(UUID().uuidString)").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer {
            close(descriptor)
            unlink(path)
        }
        return try timed {
            try data.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count, by: 16 << 10) {
                    let count = min(16 << 10, raw.count - offset)
                    guard pwrite(descriptor, raw.baseAddress! + offset, count, off_t(offset)) == count else { throw CocoaError(.fileWriteUnknown) }
                }
            }
            var back = Data(capacity: data.count)
            var piece = Data(count: 1 << 20)
            for offset in stride(from: 0, to: data.count, by: 1 << 20) {
                let count = min(1 << 20, data.count - offset)
                let got = piece.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
                guard got == count else { throw CocoaError(.fileReadUnknown) }
                back.append(piece.prefix(count))
            }
            precondition(back.count == data.count)
        }
    }

    /// (d) 100 transfers at once from a trickling origin: CPU, peak descriptors, peak RSS.
    static func hundredAtOnce(_ slow: SlowOrigin, curl: CurlTransport, urlSession: URLSessionTransport) async throws {
        for (name, transport) in [("URLSession", urlSession as any HTTPTransport), ("libcurl", curl)] {
            let before = (descriptors: openDescriptors(), rss: residentBytes())
            let peak = LockedBox(before)
            let cpuUsed = try await cpu {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<100 {
                        group.addTask { try await stream(slow.url("/trickle/d\(index)"), over: transport, for: .seconds(waitSeconds)) }
                    }
                    let sampler = Task {
                        while !Task.isCancelled {
                            let now = (descriptors: openDescriptors(), rss: residentBytes())
                            peak.withLock { $0 = (max($0.descriptors, now.descriptors), max($0.rss, now.rss)) }
                            try? await Task.sleep(for: .milliseconds(100))
                        }
                    }
                    try await group.waitForAll()
                    sampler.cancel()
                    _ = await sampler.value
                }
            }
            let highest = peak.withLock { $0 }
            print("  (d) 100 trickling transfers for \(waitSeconds) s, \(name): CPU \(percent(cpuUsed)) of a core,"
                + " peak +\(highest.descriptors - before.descriptors) descriptors, peak RSS +\((highest.rss - before.rss) >> 20) MB")
        }
    }

    // MARK: Helpers

    /// Fetches `url` whole over `transport`; returns the body's length.
    static func fetch(_ url: URL, over transport: any HTTPTransport) async throws -> Int {
        // A buffer as large as the body: URLSession cannot pause, and a reader that lags must
        // not end its transfer (libcurl never pauses then either, so both read as fast as they can).
        let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(120), bufferLimit: 128 << 20))
        var count = 0
        for try await chunk in response.body { count += chunk.data.count }
        return count
    }

    /// Reads `url` for `duration`, then drops it; returns the bytes read.
    @discardableResult
    static func stream(_ url: URL, over transport: any HTTPTransport, for duration: Duration) async throws -> Int {
        var count = 0
        do {
            let response = try await transport.send(HTTPRequest(url: url, deadline: .now + duration, idleTimeout: .seconds(120)))
            for try await chunk in response.body { count += chunk.data.count }
        } catch let error as URLError where error.code == .timedOut {
            // The deadline is how the trickle ends (before the head too, when the origin's
            // listen backlog held the connection back).
        }
        return count
    }

    /// Cores used while `body` ran: CPU seconds over wall seconds.
    static func cpu(_ body: () async throws -> Void) async throws -> Double {
        let (start, wall) = (cpuSeconds(), ContinuousClock.now)
        try await body()
        return (cpuSeconds() - start) / max(1e-9, seconds(ContinuousClock.now - wall))
    }

    /// CPU seconds per MB received by `body`.
    static func cpuPerMB(_ body: () async throws -> Int) async throws -> Double {
        let start = cpuSeconds()
        let bytes = try await body()
        return (cpuSeconds() - start) / max(1e-9, Double(bytes) / 1e6)
    }

    /// This process's user + system CPU seconds.
    static func cpuSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The curl tool's CPU seconds per MB for `url` (for at most `seconds`).
    static func curlToolCPUPerMB(_ url: URL, seconds: Int?) async throws -> Double {
        let before = cpuSeconds(RUSAGE_CHILDREN)
        let bytes = try await curlTool(url, seconds: seconds)
        return (cpuSeconds(RUSAGE_CHILDREN) - before) / max(1e-9, Double(bytes) / 1e6)
    }

    /// The curl tool's wall time to download `url` whole.
    static func curlToolSeconds(_ url: URL) async throws -> Double {
        try await timed { _ = try await curlTool(url, seconds: nil) }
    }

    /// Seconds the curl tool takes to store `url` in a new file under `folder` (removed after).
    static func curlToolSeconds(_ url: URL, storingIn folder: URL) async throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("curl-\(UUID().uuidString)").path
        defer { unlink(path) }
        return try await timed { _ = try await curlTool(url, seconds: nil, output: path) }
    }

    /// Runs the curl tool on `url` to `output` (/dev/null by default); returns the bytes it received.
    static func curlTool(_ url: URL, seconds: Int?, output path: String = "/dev/null") async throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", path, "-w", "%{size_download}", "-H", "Accept-Encoding: identity"]
            + (seconds.map { ["--max-time", String($0)] } ?? []) + [url.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        try await process.runToExit()
        return Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) ?? 0
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func percent(_ cores: Double) -> String { "\(fixed(cores * 100, 2)) %" }
    static func ms(_ seconds: Double) -> String { "\(fixed(seconds * 1000, 1)) ms" }
}

/// `scripts/servers/slow_origin.py` on a free loopback port.
final class SlowOrigin: Sendable {
    let port: Int
    private let process: UncheckedProcess

    init() throws {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/slow_origin.py")
        let (process, port, _) = try startServer("the slow origin", python: "/usr/bin/python3", script: script)
        self.port = port
        self.process = UncheckedProcess(process: process)
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() { process.process.terminate() }
}

private struct UncheckedProcess: @unchecked Sendable {
    // @unchecked: only terminate() is called on it, which Process allows from any thread.
    let process: Process
}
