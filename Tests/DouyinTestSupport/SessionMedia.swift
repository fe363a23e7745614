import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The feed-session test bed's media: clips made with ffmpeg at test time, each in three gears
/// of constant bitrate (about 0.6, 1.2 and 2.4 Mbit/s), every other clip with `moov` at the
/// end; and a feed whose items point at them through a ``ShapedOrigin``.
public struct SessionMedia: Sendable {
    /// One gear's file.
    public struct GearFile: Sendable, Hashable {
        /// The file's name in ``SessionMedia/directory``.
        public var file: String
        /// Its real average bitrate, bits per second (size × 8 / duration).
        public var bitRate: Int
        /// `low`, `mid` or `high`.
        public var name: String
    }

    /// One clip.
    public struct Clip: Sendable, Hashable {
        /// Its length.
        public var duration: Duration
        /// Whether `moov` comes first.
        public var faststart: Bool
        /// Its gears, lowest first.
        public var gears: [GearFile]
    }

    /// The target bitrates, bits per second, by gear name.
    public static let targets = [("low", 600_000), ("mid", 1_200_000), ("high", 2_400_000)]

    /// Where the files are.
    public let directory: URL
    /// The clips.
    public let clips: [Clip]

    /// Makes `count` clips of `seconds` each (480×270, 25 fps, H.264 CBR, no audio) in
    /// `directory`; clips 0, 2, … are faststart, 1, 3, … have `moov` at the end.
    /// - Throws: when ffmpeg is missing (make test installs it) or fails.
    public static func generate(in directory: URL, count: Int = 4, seconds: Int = 6) async throws -> SessionMedia {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LocalBackend.StartError(description: "ffmpeg is not installed (make test installs it)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var clips: [Clip] = []
        for index in 0..<count {
            let faststart = index % 2 == 0
            var gears: [GearFile] = []
            for (name, rate) in targets {
                let file = "clip\(index)-\(name).mp4"
                let kbps = rate / 1000
                var arguments = [
                    "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=480x270:rate=25,hue=h=\(index * 47 % 360)",
                    "-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast",
                    "-b:v", "\(kbps)k", "-minrate", "\(kbps)k", "-maxrate", "\(kbps)k", "-bufsize", "\(kbps / 2)k",
                    // Filler to the exact rate: the model reads at the gear's bitrate.
                    "-x264-params", "nal-hrd=cbr", "-pix_fmt", "yuv420p", "-an",
                ]
                if faststart { arguments += ["-movflags", "+faststart"] }
                arguments.append(directory.appendingPathComponent(file).path)
                try await run(ffmpeg, arguments)
                let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[.size] as? Int ?? 0
                gears.append(GearFile(file: file, bitRate: size * 8 / seconds, name: name))
            }
            clips.append(Clip(duration: .seconds(seconds), faststart: faststart, gears: gears))
        }
        return SessionMedia(directory: directory, clips: clips)
    }

    /// An `APIResponse<[Aweme]>` of `items` awemes, item i showing clip i mod the clip count
    /// under its own URLs (`<base>i<i>/<file>`, one file under many URLs): `video.bit_rate`
    /// lists the three gears with their `play_addr`, and `video.play_addr` is the mid gear.
    public func feedJSON(base: URL, items: Int) throws -> Data {
        let awemes: [[String: Any]] = (0..<items).map { item in
            let clip = clips[item % clips.count]
            func address(_ gear: GearFile) -> [String: Any] {
                let url = base.appendingPathComponent("i\(item)").appendingPathComponent(gear.file).absoluteString
                return ["uri": "i\(item)/\(gear.file)", "url_list": [url]]
            }
            let gears: [[String: Any]] = clip.gears.enumerated().map { level, gear in
                ["bit_rate": gear.bitRate, "gear_name": gear.name, "quality_type": level, "play_addr": address(gear)]
            }
            return [
                "aweme_id": "\(7_000_000 + item)",
                "desc": "session clip \(item % clips.count)",
                "video": [
                    "play_addr": address(clip.gears[1]),
                    "duration": Int(clip.duration.components.seconds * 1000),
                    "bit_rate": gears,
                ] as [String: Any],
            ]
        }
        return try JSONSerialization.data(withJSONObject: ["code": 0, "message": "", "data": awemes], options: [.sortedKeys])
    }

    /// Runs a program to its end without blocking a thread the async tests share.
    private static func run(_ executable: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try await process.runToExit()
        guard process.terminationStatus == 0 else {
            throw LocalBackend.StartError(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}

/// `scripts/servers/shaped_origin.py` on a free loopback port: one link shared by every
/// connection (a token bucket at ``rate`` bits per second) and 40 ms before each first byte.
public final class ShapedOrigin: Sendable {
    /// What the origin sent.
    public struct Stats: Sendable, Decodable {
        /// Body bytes written to clients (a cancelled response counts what went out).
        public var bodyBytes: Int64
        /// Per response: path, first byte, bytes sent.
        public var responses: [[Response]]

        /// A path or a number of the `responses` triples.
        public enum Response: Sendable, Decodable, Hashable {
            /// The request path.
            case path(String)
            /// The first byte or the count sent.
            case number(Int64)

            /// Decodes either.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int64.self) { self = .number(number) } else { self = .path(try container.decode(String.self)) }
            }
        }

        enum CodingKeys: String, CodingKey {
            case bodyBytes = "body_bytes"
            case responses
        }
    }

    /// The port it listens on.
    public let port: Int
    private let child: OwnedChild

    /// The script in the source tree.
    public static let script = Fixtures.packageRoot.appendingPathComponent("scripts/servers/shaped_origin.py")

    /// Starts the origin serving `root` over a link of `rate` bits per second; async code calls
    /// ``start(root:rate:latencyMilliseconds:)``.
    @available(*, noasync, message: "blocks a thread async tasks share while the server starts: use `await ShapedOrigin.start(root:rate:)`")
    public init(root: URL, rate: Int, latencyMilliseconds: Int = 40) throws {
        let candidates = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
        guard let python = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LocalBackend.StartError(description: "no python3 found for the shaped origin")
        }
        let (process, port, end) = try startServer("the shaped origin", python: python, script: Self.script,
                                              arguments: ["--root", root.path, "--rate", "\(rate)", "--latency-ms", "\(latencyMilliseconds)"])
        self.port = port
        child = OwnedChild(process, end: end)
    }

    /// ``init(root:rate:latencyMilliseconds:)`` on a thread of its own (``onOwnThread(_:)``).
    public static func start(root: URL, rate: Int, latencyMilliseconds: Int = 40) async throws -> ShapedOrigin {
        try await onOwnThread { try ShapedOrigin(root: root, rate: rate, latencyMilliseconds: latencyMilliseconds) }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Changes the link's rate, bits per second.
    public func setRate(_ rate: Int) async throws { _ = try await get("/_rate/\(rate)") }

    /// Clears the statistics.
    public func reset() async throws { _ = try await get("/_reset") }

    /// What it sent since the start or the last reset.
    public func stats() async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await get("/_stats"))
    }

    /// One HTTP/1.0 GET on a socket of its own (the origin closes after answering).
    private func get(_ path: String) async throws -> Data {
        guard let answer = loopbackExchange(port: port, path) else { throw LocalBackend.StartError(description: "no answer from \(path) (is the shaped origin running?)") }
        return answer.body
    }

    /// Ends the origin process and waits for it; idempotent.
    public func stop() {
        child.stop()
    }
}
