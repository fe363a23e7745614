import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The video cache against plain reads of the same bytes: FileHandle for a cached resource,
/// a URLSession download for a cold one and for the first byte from a slow origin.
enum VideoBenchmark {
    static let size = 32 << 20
    static let piece: Int64 = 256 * 1024

    static func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-bench-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var state: UInt64 = 0x7ea
        let body = Data((0..<size).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
        let source = scratch.appendingPathComponent("source.mp4")
        try body.write(to: source)
        print("video: 32 MB resource, 256 KB reads")
        try await cachedReads(source: source, scratch: scratch)
        let nginx = try NginxOrigin(extraLocations: "location /slow/ { limit_rate 2m; }")
        try nginx.serve(body, at: "/v.mp4")
        try nginx.serve(body, at: "/slow/v.mp4")
        try await coldRead(nginx.url("/v.mp4"), scratch: scratch)
        try await firstChunk(nginx.url("/slow/v.mp4"), scratch: scratch)
    }

    /// (a) A fully cached resource read in 256 KB ranges, against FileHandle reads of the file.
    static func cachedReads(source: URL, scratch: URL) async throws {
        let cache = try VideoCache(directory: scratch.appendingPathComponent("a"), sizeLimit: 1 << 30, origin: FileOrigin(chunkSize: 1 << 20))
        let reader = cache.reader(for: source)
        defer { reader.close() }
        _ = try await reader.read(0..<Int64(size))
        let baseline = try bestTime {
            let handle = try FileHandle(forReadingFrom: source)
            defer { try? handle.close() }
            var offset: Int64 = 0
            while offset < Int64(size) {
                try handle.seek(toOffset: UInt64(offset))
                blackHole(try handle.read(upToCount: Int(piece)))
                offset += piece
            }
        }
        let cached = try await bestTimeAsync {
            var offset: Int64 = 0
            while offset < Int64(size) {
                blackHole(try await reader.read(offset..<offset + piece))
                offset += piece
            }
        }
        report("(a) cached reads", cached, against: "FileHandle", baseline, target: 1.25)
    }

    /// (b) A cold 32 MB read from loopback nginx through the cache, against a plain download.
    static func coldRead(_ url: URL, scratch: URL) async throws {
        let session = URLSessions.make()
        defer { URLSessions.tearDown(session) }
        let baseline = try await bestTimeAsync(runs: 5) {
            var request = URLRequest(url: url)
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            let (data, _) = try await session.data(for: request)
            precondition(data.count == size)
        }
        var closing = Double.infinity
        var cold = Double.infinity
        for run in 0..<5 {
            let directory = scratch.appendingPathComponent("b\(run)")
            let cache = try VideoCache(directory: directory, sizeLimit: 1 << 30)
            let reader = cache.reader(for: url)
            cold = min(cold, try await bestTimeAsync(runs: 1) {
                let data = try await reader.read(0..<Int64(size))
                precondition(data.count == size)
            })
            // close() makes the index durable (the fsync of what the background flushes have
            // not covered yet): timed apart, as a player pays it when it moves on, not per read.
            closing = min(closing, bestTime(runs: 1) { reader.close() })
            try? FileManager.default.removeItem(at: directory)
        }
        report("(b) cold read via nginx", cold, against: "URLSession download", baseline, target: 1.20)
        print("      then close() with its final fsync: \(fixed(closing * 1000, 1)) ms")
    }

    /// (c) The first chunk of a streaming read from a 2 MB/s origin, against a plain download's first byte.
    static func firstChunk(_ url: URL, scratch: URL) async throws {
        let baseline = try await bestTimeAsync(runs: 5) { try await FirstByte.wait(for: url) }
        var run = 0
        let streamed = try await bestTimeAsync(runs: 5) {
            run += 1
            let cache = try VideoCache(directory: scratch.appendingPathComponent("c\(run)"), sizeLimit: 1 << 30)
            let reader = cache.reader(for: url)
            defer { reader.close() }
            for try await chunk in reader.chunks(0..<Int64(size), chunkSize: 16 * 1024) {
                blackHole(chunk)
                break
            }
        }
        report("(c) first chunk, slow origin", streamed, against: "URLSession first byte", baseline, target: nil)
    }

    static func report(_ name: String, _ measured: Double, against baselineName: String, _ baseline: Double, target: Double?) {
        let ratio = measured / baseline
        let goal = target.map { " (target ≤ \(fixed($0)))" } ?? ""
        print("  \(name): \(fixed(measured * 1000, 1)) ms vs \(baselineName) \(fixed(baseline * 1000, 1)) ms → \(fixed(ratio))×\(goal)")
    }
}

/// The best of several timed runs of async work, in seconds.
func bestTimeAsync(runs: Int = 7, _ body: () async throws -> Void) async rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return best
}

/// Times a plain URLSession download until its first body byte, then cancels it.
final class FirstByte: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: its one stored property is a Sendable LockedBox (NSObject subclasses
    // cannot be checked).
    private let continuation = LockedBox<CheckedContinuation<Void, any Error>?>(nil)

    static func wait(for url: URL) async throws {
        let delegate = FirstByte()
        let session = URLSessions.make(delegate: delegate)
        defer { URLSessions.tearDown(session) }
        var request = URLRequest(url: url)
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        try await withCheckedThrowingContinuation { continuation in
            delegate.continuation.withLock { $0 = continuation }
            session.dataTask(with: request).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let waiting = continuation.withLock { continuation -> CheckedContinuation<Void, any Error>? in
            defer { continuation = nil }
            return continuation
        }
        if let waiting {
            waiting.resume()
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting = continuation.withLock { continuation -> CheckedContinuation<Void, any Error>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(throwing: error ?? URLError(.zeroByteResource))
    }
}
