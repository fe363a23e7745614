import Foundation

/// Video made at test time with ffmpeg, the player-side client of the proxy tests: MP4 with
/// the moov box first (faststart) and last, HLS with TS segments, fMP4 segments behind an
/// `EXT-X-MAP`, one file addressed by `EXT-X-BYTERANGE`, and a master playlist of three
/// variants. Everything is 4 s of ffmpeg's `testsrc` at 25 fps, H.264, no audio (an audio
/// decoder's output is not needed to prove bytes, and leaves nothing to drift).
public enum TestMedia {
    /// The paths ``make(in:)`` writes, relative to its directory.
    public static let faststartMP4 = "fast.mp4"
    /// An MP4 whose moov box comes after the media data.
    public static let moovAtEndMP4 = "tail.mp4"
    /// An HLS media playlist of TS segments (`ts/seg000.ts` …).
    public static let tsPlaylist = "ts/index.m3u8"
    /// An HLS media playlist of fMP4 segments with `EXT-X-MAP:URI="init.mp4"`.
    public static let fmp4Playlist = "fmp4/index.m3u8"
    /// An HLS media playlist whose segments are `EXT-X-BYTERANGE`s of one `all.ts`.
    public static let byteRangePlaylist = "br/index.m3u8"
    /// A master playlist of three variants (`v0` 160x120 … `v2` 640x480), BANDWIDTH
    /// 200,000, 600,000 and 1,500,000.
    public static let masterPlaylist = "master.m3u8"

    /// The ffmpeg binary; a missing one fails the test (make test installs Debian's ffmpeg).
    public static func ffmpeg() throws -> String {
        guard let path = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "ffmpeg is not installed (make test installs it)")
        }
        return path
    }

    /// Why making or decoding media failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with ffmpeg's own last lines.
        public let description: String
    }

    /// Writes every kind of test media into `directory`.
    public static func make(in directory: URL) async throws {
        let dir = directory.path
        for sub in ["ts", "fmp4", "br", "v0", "v1", "v2"] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(sub)", withIntermediateDirectories: true)
        }
        let source = ["-f", "lavfi", "-i", "testsrc=duration=4:size=320x240:rate=25", "-c:v", "libx264", "-preset", "ultrafast",
                      "-g", "25", "-pix_fmt", "yuv420p"]
        try await ffmpeg(source + ["-movflags", "+faststart", "\(dir)/\(faststartMP4)"])
        try await ffmpeg(source + ["\(dir)/\(moovAtEndMP4)"])
        let hls = ["-i", "\(dir)/\(faststartMP4)", "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"]
        try await ffmpeg(hls + ["-hls_segment_filename", "\(dir)/ts/seg%03d.ts", "\(dir)/\(tsPlaylist)"])
        try await ffmpeg(hls + ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                                "-hls_segment_filename", "\(dir)/fmp4/seg%03d.m4s", "\(dir)/\(fmp4Playlist)"])
        try await ffmpeg(hls + ["-hls_flags", "single_file", "-hls_segment_filename", "\(dir)/br/all.ts", "\(dir)/\(byteRangePlaylist)"])
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n"
        for (index, (size, bandwidth)) in [("160x120", 200_000), ("320x240", 600_000), ("640x480", 1_500_000)].enumerated() {
            try await ffmpeg(["-f", "lavfi", "-i", "testsrc=duration=4:size=\(size):rate=25", "-c:v", "libx264", "-preset", "ultrafast",
                              "-g", "25", "-pix_fmt", "yuv420p", "-b:v", String(bandwidth * 8 / 10),
                              "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                              "-hls_segment_filename", "\(dir)/v\(index)/seg%03d.ts", "\(dir)/v\(index)/index.m3u8"])
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size)\nv\(index)/index.m3u8\n"
        }
        try Data(master.utf8).write(to: directory.appendingPathComponent(masterPlaylist))
    }

    /// The frame checksums of `input` (a path or URL) as ffmpeg decodes it (`-f framemd5`),
    /// comment lines left out; `seek` in seconds is passed as `-ss` before the input, and
    /// `frames` limits the video frames decoded.
    public static func framemd5(_ input: String, seek: Double? = nil, frames: Int? = nil) async throws -> [String] {
        var arguments = ["-hide_banner", "-loglevel", "error", "-nostdin"]
        if let seek { arguments += ["-ss", String(seek)] }
        arguments += ["-i", input, "-map", "0:v:0"]
        if let frames { arguments += ["-frames:v", String(frames)] }
        arguments += ["-f", "framemd5", "-"]
        let result = try await run(try ffmpeg(), arguments)
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg decoding \(input) exited \(result.status): \(result.stderr.suffix(800))")
        }
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    private static func ffmpeg(_ arguments: [String]) async throws {
        let result = try await run(try ffmpeg(), ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments)
        guard result.status == 0 else { throw Failure(description: "ffmpeg \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr.suffix(800))") }
    }

    /// What a child process printed and how it exited.
    public struct RunResult: Sendable {
        /// The exit status.
        public var status: Int32
        /// Its stdout as text.
        public var stdout: String
        /// Its stdout as bytes.
        public var output: Data
        /// Its stderr as text.
        public var stderr: String
    }

    /// Runs `executable` with `arguments` and waits without blocking a thread (a server under
    /// test shares the few threads async tests run on); output goes to files, never a pipe a
    /// child could fill.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> RunResult {
        let result = try await Tool.run(arguments, executable: URL(fileURLWithPath: executable))
        return RunResult(status: result.status, stdout: result.stdout, output: result.output, stderr: result.stderr)
    }
}
