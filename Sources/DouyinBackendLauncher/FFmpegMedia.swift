import Foundation

/// ffmpeg as the tool's demo, the benchmarks and the tests use it: one place that finds the
/// binary, runs it (or any child) without blocking a thread, makes the H.264 media they all
/// play (ffmpeg's `testsrc`, no audio: an audio decoder's output proves nothing about bytes
/// and leaves something to drift) and decodes it to per-frame checksums, the proof that a
/// player got the right bytes.
public enum FFmpegMedia {
    /// The first installed ffmpeg (`/usr/bin`, `/usr/local/bin`, `/opt/homebrew/bin`); `nil`
    /// when there is none (`make test` installs Debian's).
    public static var binary: String? {
        ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why making or decoding media failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with the child's own last lines of stderr.
        public let description: String

        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// What a child process printed and how it exited.
    public struct RunResult: Sendable {
        /// The exit status (the signal number when a signal ended it).
        public var status: Int32
        /// Its stdout as text (UTF-8, invalid bytes replaced).
        public var stdout: String
        /// Its stdout as bytes.
        public var output: Data
        /// Its stderr as text.
        public var stderr: String
    }

    /// The installed ffmpeg, or ``Failure`` saying it is missing.
    public static func requireBinary() throws -> String {
        guard let binary else { throw Failure(description: "ffmpeg is not installed (make test installs it)") }
        return binary
    }

    /// Runs `executable` with `arguments` and waits without blocking a thread (a server in the
    /// same process shares the few threads async code runs on); output goes to files, never a
    /// pipe a child could fill while nobody reads it.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let (output, errors) = try await process.runCapturingOutput()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self), output: output,
                         stderr: String(decoding: errors, as: UTF8.self))
    }

    /// Runs ffmpeg quietly (`-hide_banner -loglevel error -nostdin -y`) with `arguments`.
    /// - Throws: ``Failure`` when ffmpeg is missing or exits non-zero (with its last stderr lines).
    public static func make(_ arguments: [String]) async throws {
        let result = try await run(try requireBinary(), ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr.suffix(800))")
        }
    }

    /// ffmpeg's input and encoder arguments for `seconds` of `testsrc` at `size` (`WxH`), 25 fps,
    /// H.264 (x264 `ultrafast`, a keyframe every second, yuv420p); `bitRate` in bits per second
    /// adds `-b:v` (absent: x264's own rate control). Append the output options and path.
    public static func testSource(seconds: Int, size: String, bitRate: Int? = nil) -> [String] {
        var arguments = ["-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=\(size):rate=25", "-c:v", "libx264", "-preset", "ultrafast",
                         "-g", "25", "-pix_fmt", "yuv420p"]
        if let bitRate { arguments += ["-b:v", String(bitRate)] }
        return arguments
    }

    /// The arguments that cut `input` (copied, not re-encoded) into an HLS VOD media playlist
    /// of segments of about `segmentSeconds` (TS unless `extra` says otherwise, e.g.
    /// `-hls_segment_type fmp4`), named by `segmentPattern` (`dir/seg%03d.ts`), written to
    /// `playlist`.
    public static func hlsArguments(input: String, playlist: String, segmentPattern: String, segmentSeconds: Int = 1,
                                    extra: [String] = []) -> [String] {
        ["-i", input, "-c", "copy", "-f", "hls", "-hls_time", String(segmentSeconds), "-hls_playlist_type", "vod"]
            + extra + ["-hls_segment_filename", segmentPattern, playlist]
    }

    /// The frame checksums of `input` (a path or URL) as ffmpeg decodes its first video stream
    /// (`-f framemd5`), comment lines left out; `seek` in seconds is passed as `-ss` before the
    /// input (absent: from the start), `frames` limits the frames decoded (absent: all).
    /// - Throws: ``Failure`` when ffmpeg is missing or exits non-zero.
    public static func framemd5(_ input: String, seek: Double? = nil, frames: Int? = nil) async throws -> [String] {
        var arguments = ["-hide_banner", "-loglevel", "error", "-nostdin"]
        if let seek { arguments += ["-ss", String(seek)] }
        arguments += ["-i", input, "-map", "0:v:0"]
        if let frames { arguments += ["-frames:v", String(frames)] }
        arguments += ["-f", "framemd5", "-"]
        let result = try await run(try requireBinary(), arguments)
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg decoding \(input) exited \(result.status): \(result.stderr.suffix(800))")
        }
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }
}
