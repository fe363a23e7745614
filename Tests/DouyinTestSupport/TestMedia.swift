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
    public static func ffmpeg() throws -> String { try FFmpegMedia.requireBinary() }

    /// Why making or decoding media failed.
    public typealias Failure = FFmpegMedia.Failure

    /// Writes every kind of test media into `directory`.
    public static func make(in directory: URL) async throws {
        let dir = directory.path
        for sub in ["ts", "fmp4", "br", "v0", "v1", "v2"] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(sub)", withIntermediateDirectories: true)
        }
        let source = FFmpegMedia.testSource(seconds: 4, size: "320x240")
        try await FFmpegMedia.make(source + ["-movflags", "+faststart", "\(dir)/\(faststartMP4)"])
        try await FFmpegMedia.make(source + ["\(dir)/\(moovAtEndMP4)"])
        func hls(_ playlist: String, _ segments: String, _ extra: [String] = []) async throws {
            try await FFmpegMedia.make(FFmpegMedia.hlsArguments(input: "\(dir)/\(faststartMP4)", playlist: "\(dir)/\(playlist)",
                                                                segmentPattern: "\(dir)/\(segments)", extra: extra))
        }
        try await hls(tsPlaylist, "ts/seg%03d.ts")
        try await hls(fmp4Playlist, "fmp4/seg%03d.m4s", ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"])
        try await hls(byteRangePlaylist, "br/all.ts", ["-hls_flags", "single_file"])
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n"
        for (index, (size, bandwidth)) in [("160x120", 200_000), ("320x240", 600_000), ("640x480", 1_500_000)].enumerated() {
            try await FFmpegMedia.make(FFmpegMedia.testSource(seconds: 4, size: size, bitRate: bandwidth * 8 / 10)
                + ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                   "-hls_segment_filename", "\(dir)/v\(index)/seg%03d.ts", "\(dir)/v\(index)/index.m3u8"])
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size)\n"
            master += "v\(index)/index.m3u8\n"
        }
        try Data(master.utf8).write(to: directory.appendingPathComponent(masterPlaylist))
    }

    /// The frame checksums of `input` (a path or URL) as ffmpeg decodes it (`-f framemd5`),
    /// comment lines left out; `seek` in seconds is passed as `-ss` before the input, and
    /// `frames` limits the video frames decoded.
    public static func framemd5(_ input: String, seek: Double? = nil, frames: Int? = nil) async throws -> [String] {
        try await FFmpegMedia.framemd5(input, seek: seek, frames: frames)
    }

    /// What a child process printed and how it exited.
    public typealias RunResult = FFmpegMedia.RunResult

    /// Runs `executable` with `arguments` and waits without blocking a thread (a server under
    /// test shares the few threads async tests run on); output goes to files, never a pipe a
    /// child could fill.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> RunResult {
        try await FFmpegMedia.run(executable, arguments)
    }
}
