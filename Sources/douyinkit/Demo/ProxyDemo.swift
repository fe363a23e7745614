import DouyinBackendLauncher
import DouyinKit
import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The local-proxy part of `douyinkit demo`: ffmpeg, a real player, plays a moov-at-end MP4
/// and an HLS stream of TS segments through a ``VideoProxyServer`` from a 2 Mbit/s origin,
/// twice. Pass 2 is a new cache and server over the same folder (an app relaunched) with the
/// origin stopped: everything comes from the cache. Per pass: what the origin sent, where the
/// proxy's bytes came from, and whether ffmpeg's frame checksums equal pass 1's and a decode
/// of the file itself. The media is made with ffmpeg at demo time (5 s of 320×240); without
/// ffmpeg the section says so and the demo goes on.
enum ProxyDemo {
    /// Bytes per second each origin request is sent at: 2 Mbit/s, as the session section's link.
    static let linkRate = 250_000
    /// The two streams, relative to the media folder.
    static let streams = ["tail.mp4", "ts/index.m3u8"]

    static func run() async throws {
        print("\n== Local proxy: ffmpeg plays a moov-at-end MP4 and an HLS stream (TS segments) through VideoProxyServer "
            + "from a simulated 2 Mbit/s origin, twice; pass 2 from the cache with the origin stopped")
        guard FFmpegMedia.binary != nil else {
            print("  skipped: ffmpeg not installed")
            return
        }
        fflush(nil)  // the section is silent while ffmpeg works
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-demo-proxy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let media = scratch.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: media.appendingPathComponent("ts"), withIntermediateDirectories: true)
        // 600 kbit/s, about a short video's rate at this size: each pass 1 takes ~1.5 s a stream.
        try await FFmpegMedia.make(FFmpegMedia.testSource(seconds: 5, size: "320x240", bitRate: 600_000) + [media.appendingPathComponent("tail.mp4").path])
        try await FFmpegMedia.make(FFmpegMedia.hlsArguments(input: media.appendingPathComponent("tail.mp4").path,
                                                            playlist: media.appendingPathComponent(streams[1]).path,
                                                            segmentPattern: media.appendingPathComponent("ts/seg%03d.ts").path))
        let origin = DemoMediaOrigin(root: media, bytesPerSecond: linkRate)
        let folder = scratch.appendingPathComponent("cache")
        for stream in streams {
            let reference = try await FFmpegMedia.framemd5(media.appendingPathComponent(stream).path)
            var first: [String] = []
            for pass in 1...2 {
                if pass == 2 { origin.stop() }
                let play = try await playThroughProxy(DemoMediaOrigin.base.appendingPathComponent(stream), origin: origin, folder: folder)
                if pass == 1 { first = play.frames }
                func same(_ other: [String]) -> String { play.frames == other ? "equal" : "DIFFERENT" }
                let comparison = pass == 1 ? "framemd5 = file: \(same(reference))" : "framemd5 = pass 1: \(same(first)), = file: \(same(reference))"
                print("  \(stream) pass \(pass)\(pass == 2 ? " (origin stopped)" : ""): \(play.frames.count) frames in \(Demo.milliseconds(play.time)) ms; "
                    + "origin sent \(play.originBytes) bytes (\(play.originRequests) request\(play.originRequests == 1 ? "" : "s")); proxy served \(play.proxy.bytesServed) bytes, "
                    + "\(play.proxy.bytesFromCache) from cache, \(play.proxy.bytesFromOrigin) from origin; \(comparison)")
                fflush(nil)  // a line per pass as it ends, in a pipe too (`make demo | tee log`)
            }
            origin.restart()
        }
    }

    /// What one ffmpeg play through a fresh proxy saw.
    struct Play {
        var frames: [String]
        var time: Duration
        var originBytes: Int64
        var originRequests: Int
        var proxy: VideoProxyServer.Statistics
    }

    /// A new cache and server over `folder` (as an app starts them), ffmpeg decoding `url`
    /// through it, then the server stopped (which writes the cache's index).
    static func playThroughProxy(_ url: URL, origin: DemoMediaOrigin, folder: URL) async throws -> Play {
        let asked = origin.requests
        let server = VideoProxyServer(cache: try VideoCache(directory: folder, sizeLimit: 64 << 20, origin: origin))
        try server.start()
        let clock = ContinuousClock()
        let start = clock.now
        let frames: [String]
        do {
            frames = try await FFmpegMedia.framemd5(server.url(for: url)!.absoluteString)
        } catch {
            await server.stop()
            throw error
        }
        let time = clock.now - start
        await server.stop()
        return Play(frames: frames, time: time, originBytes: server.cache.statistics.originBytes,
                    originRequests: origin.requests - asked, proxy: server.statistics)
    }
}

/// The section's origin: the files it made, under `http://media.invalid/…` (the proxy takes
/// http(s) origins only; `.invalid` never resolves, so nothing leaves the machine), each
/// request sent at a fixed rate by ``FileOrigin``'s throttle as in the other sections. Once
/// stopped it refuses every request as an unplugged server would, and counts them.
final class DemoMediaOrigin: VideoOrigin {
    /// The origin URL the media folder's root stands for.
    static let base = URL(string: "http://media.invalid/")!
    private let root: URL
    private let files: FileOrigin
    private let state = LockedBox((stopped: false, requests: 0))

    init(root: URL, bytesPerSecond: Int) {
        self.root = root
        files = FileOrigin(bytesPerSecond: bytesPerSecond, chunkSize: 16 * 1024)
    }

    /// Requests asked of it so far, refused ones included.
    var requests: Int { state.withLock { $0.requests } }

    /// From now on every request fails as a connection refused.
    func stop() { state.withLock { $0.stopped = true } }

    /// Serves again.
    func restart() { state.withLock { $0.stopped = false } }

    func fetch(_ request: OriginRequest) async throws -> OriginResponse {
        let stopped = state.withLock { state -> Bool in
            state.requests += 1
            return state.stopped
        }
        if stopped { throw VideoCacheError.network(URLError(.cannotConnectToHost)) }
        var local = request
        local.url = root.appendingPathComponent(String(request.url.path.drop { $0 == "/" }))
        return try await files.fetch(local)
    }
}
