import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An origin that serves `file://` URLs with HTTP range semantics, so the cache runs without a
/// server (the demo, offline tools). Its ETag is the file's size and modification time.
public struct FileOrigin: VideoOrigin {
    /// Bytes per second to deliver at, simulating a slow link; `nil` (the default) for full speed.
    public var bytesPerSecond: Int?
    /// Bytes in each body chunk; default 65,536 (64 KB), at least 1.
    public var chunkSize: Int
    /// The clock the throttle waits on (before each chunk, `chunkSize / bytesPerSecond`
    /// seconds); default `ContinuousClock()`. A test clock makes a slow link instant.
    public var clock: any Clock<Duration>

    /// A file origin, optionally throttled to `bytesPerSecond` on `clock`.
    public init(bytesPerSecond: Int? = nil, chunkSize: Int = 64 * 1024, clock: any Clock<Duration> = ContinuousClock()) {
        self.bytesPerSecond = bytesPerSecond
        self.chunkSize = max(1, chunkSize)
        self.clock = clock
    }

    /// Answers 206 with the requested bytes (clipped to the file), 416 past its end, 404 when absent.
    public func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        guard request.url.isFileURL else { throw VideoCacheError.invalidResponse("FileOrigin serves file:// URLs only") }
        let path = request.url.path
        // Opened without blocking and checked on the descriptor: a FIFO with no writer would
        // block `FileHandle(forReadingAtPath:)` for ever, and a device never ends.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            return OriginResponse(status: 404, headers: [:], body: AsyncThrowingStream { $0.finish() })
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw VideoCacheError.invalidResponse("\(path) is not a regular file")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let size = Int64(status.st_size)
        #if os(Linux)
        let changed = status.st_mtim
        #else
        let changed = status.st_mtimespec
        #endif
        let modified = Double(changed.tv_sec) + Double(changed.tv_nsec) / 1e9
        let etag = "\"\(String(size, radix: 16))-\(String(Int64(modified * 1000), radix: 16))\""
        var headers = ["etag": etag, "content-type": Self.mimeType(for: request.url)]
        let start = request.range.lowerBound
        guard start < size else {
            try? handle.close()
            headers["content-range"] = "bytes */\(size)"
            return OriginResponse(status: 416, headers: headers, body: AsyncThrowingStream { $0.finish() })
        }
        let end = min(request.range.upperBound, size)
        headers["content-range"] = "bytes \(start)-\(end - 1)/\(size)"
        headers["content-length"] = String(end - start)
        let chunkSize = chunkSize, clock = clock
        let pause = bytesPerSecond.map { Duration.seconds(Double(chunkSize) / Double(max(1, $0))) }
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            let producer = Task {
                defer { try? handle.close() }
                do {
                    try handle.seek(toOffset: UInt64(start))
                    var offset = start
                    while offset < end {
                        try Task.checkCancellation()
                        if let pause { try await clock.sleep(for: pause) }
                        let count = Int(min(Int64(chunkSize), end - offset))
                        guard let chunk = try handle.read(upToCount: count), !chunk.isEmpty else { break }
                        continuation.yield(chunk)
                        offset += Int64(chunk.count)
                    }
                    continuation.finish()
                } catch {
                    // A read failing mid-file is this origin's transfer failing, as a URL
                    // session's would: the file's error text kept in the URLError.
                    let failure = URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
                    continuation.finish(throwing: error is CancellationError ? VideoCacheError.cancelled : VideoCacheError.network(failure))
                }
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
        return OriginResponse(status: 206, headers: headers, body: body)
    }

    private static func mimeType(for url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "ts": "video/mp2t"
        default: "application/octet-stream"
        }
    }
}
