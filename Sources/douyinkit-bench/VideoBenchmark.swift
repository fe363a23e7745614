import DouyinKit
import DouyinSupport
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The video cache against plain reads of the same bytes: FileHandle for a cached resource,
/// a URLSession download for a cold one and for the first byte from a slow origin, and the
/// cache's own warm reads for the first read after a restart (block checksums checked). Every
/// comparison is interleaved pairs (baseline, subject, baseline, …) reported as the median of
/// the pairwise ratios.
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
        print("video: 32 MB resource, 256 KB reads, interleaved pairs")
        try await cachedReads(source: source, scratch: scratch)
        try await readAfterRestart(source: source, scratch: scratch)
        checksumSpeed(body)
        let nginx = try await NginxOrigin.start(extraLocations: "location /slow/ { limit_rate 2m; }")
        try nginx.serve(body, at: "/v.mp4")
        try nginx.serve(body, at: "/slow/v.mp4")
        try await coldRead(nginx.url("/v.mp4"), scratch: scratch)
        try await firstChunk(nginx.url("/slow/v.mp4"), scratch: scratch)
        try await firstChunkAfterAWait(body, scratch: scratch)
    }

    /// Reads all 32 MB through `reader` in 256 KB ranges.
    static func readAll(_ reader: VideoReader) async throws {
        var offset: Int64 = 0
        while offset < Int64(size) {
            blackHole(try await reader.read(offset..<offset + piece))
            offset += piece
        }
    }

    /// (a) A fully cached resource read in 256 KB ranges, against FileHandle reads of the file.
    static func cachedReads(source: URL, scratch: URL) async throws {
        let cache = try VideoCache(directory: scratch.appendingPathComponent("a"), sizeLimit: 1 << 30, origin: FileOrigin(chunkSize: 1 << 20))
        let reader = cache.reader(for: source)
        defer { reader.close() }
        _ = try await reader.read(0..<Int64(size))
        let comparison = try await interleavedPairs(baseline: {
            try timed {
                let handle = try FileHandle(forReadingFrom: source)
                defer { try? handle.close() }
                var offset: Int64 = 0
                while offset < Int64(size) {
                    try handle.seek(toOffset: UInt64(offset))
                    blackHole(try handle.read(upToCount: Int(piece)))
                    offset += piece
                }
            }
        }, subject: {
            try await timed { try await readAll(reader) }
        })
        print("  (a) cached reads: FileHandle (baseline) median \(ms(comparison.medianBaseline)) | VideoReader median \(ms(comparison.medianSubject))")
        print("      time cache / FileHandle: \(comparison.summary(.time, target: 1.25))")
    }

    /// (d) The first read of a held resource after a restart, which checks every 256 KB block
    /// against its CRC-32C, against the same read once the blocks are checked (a warm entry).
    /// Each pair opens a new VideoCache over the same directory, as a relaunched app does.
    static func readAfterRestart(source: URL, scratch: URL) async throws {
        let directory = scratch.appendingPathComponent("d")
        var warm: VideoReader
        do {
            let cache = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: FileOrigin(chunkSize: 1 << 20))
            warm = cache.reader(for: source)
            _ = try await warm.read(0..<Int64(size))
            warm.close()
            warm = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: FileOrigin()).reader(for: source)
            try await readAll(warm)
        }
        let comparison = try await interleavedPairs(baseline: {
            try await timed { try await readAll(warm) }
        }, subject: {
            let cache = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: FileOrigin())
            let restarted = cache.reader(for: source)
            let time = try await timed { try await readAll(restarted) }
            precondition(cache.statistics.originBytes == 0, "a block failed its check and was fetched again")
            warm.close()
            warm = restarted
            return time
        })
        warm.close()
        print("  (d) first read after a restart, every block's CRC-32C checked (\(CRC32C.usesHardware ? "hardware" : "tables")): warm entry (baseline) median \(ms(comparison.medianBaseline)) | restarted median \(ms(comparison.medianSubject))")
        print("      time restarted / warm: \(comparison.summary(.time))")
    }

    /// The CRC-32C the index write adds per stored byte (on top of reading the block back from
    /// the page cache), as an absolute speed: the path in use (the processor's instructions
    /// where it has them) and the Swift tables it falls back to, over 32 MB and over one 256 KB
    /// block (the size the video cache checks at a time, in the processor's cache).
    static func checksumSpeed(_ body: Data) {
        let block = body.prefix(Int(piece))
        let time = bestTime { blackHole(CRC32C.checksum(body)) }
        let blockTime = bestTime { for _ in 0..<128 { blackHole(CRC32C.checksum(block)) } }
        let table = bestTime { blackHole(body.withUnsafeBytes { CRC32C.software($0) }) }
        let path = CRC32C.usesHardware ? "hardware" : "tables"
        print("      CRC-32C alone (\(path)): \(ms(time)) per 32 MB, \(fixed(Double(size) / time / 1e9)) GB/s;"
            + " 256 KB blocks \(fixed(Double(piece) * 128 / blockTime / 1e9)) GB/s | Swift tables \(fixed(Double(size) / table / 1e9)) GB/s (best of 7)")
    }

    /// (b) A cold 32 MB read from loopback nginx through the cache, against a plain download.
    static func coldRead(_ url: URL, scratch: URL) async throws {
        let session = URLSessions.make()
        defer { URLSessions.tearDown(session) }
        var closing: [Double] = []
        var run = 0
        let comparison = try await interleavedPairs(baseline: {
            try await timed {
                var request = URLRequest(url: url)
                request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
                let (data, _) = try await session.data(for: request)
                precondition(data.count == size)
            }
        }, subject: {
            run += 1
            let directory = scratch.appendingPathComponent("b\(run)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let reader = try VideoCache(directory: directory, sizeLimit: 1 << 30).reader(for: url)
            let time = try await timed {
                let data = try await reader.read(0..<Int64(size))
                precondition(data.count == size)
            }
            // close() makes the index durable (the fsync of what the background flushes have
            // not covered yet): timed apart, as a player pays it when it moves on, not per read.
            let closeStart = ContinuousClock.now
            reader.close()
            closing.append(seconds(ContinuousClock.now - closeStart))
            return time
        })
        print("  (b) cold read via nginx: URLSession download (baseline) median \(ms(comparison.medianBaseline)) | cache median \(ms(comparison.medianSubject))")
        print("      time cache / download: \(comparison.summary(.time, target: 1.20))")
        print("      then close() with its final fsync: median \(ms(median(closing)))")
    }

    /// (c) The first chunk of a streaming read from a 2 MB/s origin, against a plain download's
    /// first byte: URLSession's, then the platform's default transport's own (the one the
    /// cache's origin uses; issue 35 asks ≤ 1.2× of it).
    static func firstChunk(_ url: URL, scratch: URL) async throws {
        let comparison = try await interleavedPairs(baseline: {
            try await timed { try await FirstByte.wait(for: url) }
        }, subject: {
            try await cacheFirstChunk(url, scratch: scratch)
        })
        print("  (c) first chunk, slow origin: URLSession first byte (baseline) median \(ms(comparison.medianBaseline)) | cache first chunk median \(ms(comparison.medianSubject))")
        print("      time cache / first byte: \(comparison.summary(.time))")
        try await againstTheTransport(url, scratch: scratch)
    }

    /// (c) with a slow first byte: the shaped origin waits 50 ms before each answer's first
    /// byte (no rate limit), so the cache's own cost before its first chunk is seen against a
    /// wait a real origin has, not against a loopback first byte of about a millisecond.
    static func firstChunkAfterAWait(_ body: Data, scratch: URL) async throws {
        let root = scratch.appendingPathComponent("shaped")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try body.write(to: root.appendingPathComponent("v.mp4"))
        let origin = try await ShapedOrigin.start(root: root, rate: 0, latencyMilliseconds: 50)
        defer { origin.stop() }
        print("  (c) the same from an origin whose first byte takes 50 ms:")
        try await againstTheTransport(origin.base.appendingPathComponent("v.mp4"), scratch: scratch)
    }

    /// The cache's first chunk of `url` against the platform's default transport's own first
    /// body bytes, 31 pairs (the loopback figures are about a millisecond).
    static func againstTheTransport(_ url: URL, scratch: URL) async throws {
        let transport = HTTPTransports.platformDefault
        let own = try await interleavedPairs(pairs: 31, baseline: {
            try await timed { try await firstBodyChunk(url, over: transport) }
        }, subject: {
            try await cacheFirstChunk(url, scratch: scratch)
        })
        print("      \(type(of: transport))'s own first byte (baseline) median \(ms(own.medianBaseline)) | cache first chunk median \(ms(own.medianSubject))")
        print("      time cache / the transport's first byte: \(own.summary(.time, target: 1.20))")
    }

    /// Seconds until a fresh cache's streaming read of `url` yields its first chunk.
    static func cacheFirstChunk(_ url: URL, scratch: URL) async throws -> Double {
        let directory = scratch.appendingPathComponent("c-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = try VideoCache(directory: directory, sizeLimit: 1 << 30).reader(for: url)
        defer { reader.close() }
        return try await timed {
            for try await chunk in reader.chunks(0..<Int64(size), chunkSize: 16 * 1024) {
                blackHole(chunk)
                break
            }
        }
    }

    /// Waits for the first body bytes of `url` over `transport`, then ends the transfer.
    static func firstBodyChunk(_ url: URL, over transport: any HTTPTransport) async throws {
        let response = try await transport.send(HTTPRequest(url: url, idleTimeout: .seconds(30)))
        defer { response.body.cancel() }
        for try await chunk in response.body where !chunk.data.isEmpty { return }
        throw URLError(.zeroByteResource)
    }

    static func ms(_ seconds: Double) -> String { "\(fixed(seconds * 1000, 1)) ms" }
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
