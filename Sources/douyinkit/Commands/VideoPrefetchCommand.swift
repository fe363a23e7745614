import DouyinKit
import Foundation

/// `douyinkit video prefetch <url> --dir <dir> --seconds S [--max-bandwidth B]`: caches the
/// start of a video in seconds of media — for an HLS master playlist the chosen variant's
/// first segments (with their maps and keys), for an MP4 the moov box wherever it is and S
/// seconds at the file's average bitrate.
enum VideoPrefetchCommand {
    static let usage = "usage: douyinkit video prefetch <url> --dir <dir> --seconds S [--max-bandwidth B]"

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") {
            print(usage)
            exit(0)
        }
        var options = try Options(arguments, usage: usage)
        guard options.positional.count == 1, let url = URL(string: options.positional[0]), url.scheme != nil else { throw ToolError.usage(usage) }
        guard let directory = options.string("--dir") else { throw ToolError.usage("--dir is missing\n\(usage)") }
        guard let secondsText = options.string("--seconds") else { throw ToolError.usage("--seconds is missing\n\(usage)") }
        guard let seconds = Double(secondsText), seconds.isFinite, seconds > 0 else {
            throw ToolError.usage("--seconds must be a number above 0, not \"\(secondsText)\"\n\(usage)")
        }
        let maxBandwidth: Int? = try options.string("--max-bandwidth").map { text in
            guard let value = Int(text), value >= 0 else { throw ToolError.usage("--max-bandwidth must be a whole number ≥ 0, not \"\(text)\"\n\(usage)") }
            return value
        }
        try options.finish()
        let cache: VideoCache
        do {
            cache = try VideoCache(directory: URL(fileURLWithPath: directory), sizeLimit: 4 << 30)
        } catch {
            throw ToolError.failed(error.description)
        }
        do {
            let prefetch = Prefetch(cache: cache)
            let info = try await prefetch.info(url)
            if ProxyPlaylist.isPlaylist(mimeType: info.mimeType, url: url) {
                try await prefetch.playlist(url, seconds: seconds, maxBandwidth: maxBandwidth)
            } else {
                try await prefetch.mp4(url, seconds: seconds)
            }
        } catch let error as VideoCacheError {
            throw ToolError.failed(error.description)
        }
    }
}

/// The fetching behind `video prefetch`, one printed line a resource.
private struct Prefetch {
    let cache: VideoCache

    func info(_ url: URL) async throws -> VideoContentInfo {
        let reader = cache.reader(for: url)
        defer { reader.close() }
        return try await reader.contentInfo()
    }

    /// Caches `ranges` of `url` (`nil`: all of it) and prints its line; returns the bytes when
    /// `collect` is set.
    @discardableResult
    func fetch(_ kind: String, _ url: URL, ranges: [Range<Int64>]? = nil, collect: Bool = false, kindOf: ((Data) -> String)? = nil) async throws -> Data {
        let heldBefore = cache.cachedRanges(for: url)
        let reader = cache.reader(for: url)
        defer { reader.close() }
        let length = try await reader.contentInfo().length ?? 0
        let wanted = (ranges ?? [0..<length]).map { $0.clamped(to: 0..<length) }.filter { !$0.isEmpty }
        var data = Data()
        for range in wanted {
            if collect { data.append(try await reader.read(range)) } else { try await reader.prefetch(range) }
        }
        let bytes = wanted.reduce(Int64(0)) { $0 + Int64($1.count) }
        let cached = wanted.allSatisfy { heldBefore.contains($0) }
        print("\(kindOf?(data) ?? kind) \(url.absoluteString) bytes=\(bytes) source=\(cached ? "cached" : "network")")
        return data
    }

    func playlist(_ url: URL, seconds: Double, maxBandwidth: Int?) async throws {
        var mediaURL = url
        // The URL given may be a master or a media playlist: its line says which.
        let first = try await fetch("master", url, collect: true) { data in
            ((try? HLSPlaylist(String(decoding: data, as: UTF8.self)))?.isMaster ?? false) ? "master" : "playlist"
        }
        var playlist = try HLSPlaylist(String(decoding: first, as: UTF8.self))
        if playlist.isMaster {
            // The highest BANDWIDTH under the cap; none fits, or no cap: the lowest.
            let fitting = playlist.variants.filter { maxBandwidth != nil && $0.bandwidth <= maxBandwidth! }
            guard let variant = fitting.max(by: { $0.bandwidth < $1.bandwidth }) ?? playlist.variants.min(by: { $0.bandwidth < $1.bandwidth }),
                  let resolved = URL(string: variant.uri, relativeTo: url)?.absoluteURL else {
                throw VideoCacheError.invalidResponse("playlist: no variant to play")
            }
            mediaURL = resolved
            playlist = try HLSPlaylist(String(decoding: try await fetch("playlist", mediaURL, collect: true), as: UTF8.self))
        }
        var covered = 0.0
        var done: Set<String> = []
        for segment in playlist.segments where covered < seconds {
            if let map = segment.map, let mapURL = URL(string: map.uri, relativeTo: mediaURL)?.absoluteURL,
               done.insert("map \(mapURL.absoluteString) \(String(describing: map.byteRange))").inserted {
                try await fetch("map", mapURL, ranges: map.byteRange.map { [$0.range] })
            }
            if let key = segment.key, key.method != "NONE", let uri = key.uri, let keyURL = URL(string: uri, relativeTo: mediaURL)?.absoluteURL,
               done.insert("key \(keyURL.absoluteString)").inserted {
                try await fetch("key", keyURL)
            }
            guard let segmentURL = URL(string: segment.uri, relativeTo: mediaURL)?.absoluteURL else { continue }
            try await fetch("segment", segmentURL, ranges: segment.byteRange.map { [$0.range] })
            covered += segment.duration
        }
    }

    func mp4(_ url: URL, seconds: Double) async throws {
        let reader = cache.reader(for: url)
        defer { reader.close() }
        guard let length = try await reader.contentInfo().length else { throw VideoCacheError.invalidResponse("no length") }
        let boxes = try await MP4Layout.boxes(length: length) { offset in try await reader.read(offset..<(offset + 16)) }
        guard let moov = boxes.first(where: { $0.type == "moov" }), let mdat = boxes.first(where: { $0.type == "mdat" }) else {
            throw VideoCacheError.invalidResponse("\(url.absoluteString) is not an MP4 with moov and mdat boxes")
        }
        let moovBytes = try await reader.read(moov.range)
        guard let duration = MP4Layout.duration(moov: moovBytes), duration > 0 else {
            throw VideoCacheError.invalidResponse("the moov box of \(url.absoluteString) has no duration")
        }
        // S seconds at the file's average bitrate, from where the media data starts.
        let mediaBytes = Int64((Double(length) * min(1, seconds / duration)).rounded(.up))
        let mediaStart = mdat.range.lowerBound + mdat.headerSize
        // One set: with moov first the two overlap, and no byte is counted twice.
        let ranges = ByteRangeSet([0..<min(mdat.range.upperBound, mediaStart + mediaBytes), moov.range]).ranges
        try await fetch("video", url, ranges: ranges)
    }
}
