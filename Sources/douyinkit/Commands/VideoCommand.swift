import DouyinKit
import Foundation

/// `douyinkit video get <url> --range <first>-<last> --dir <dir> [--out <file>]`: an inclusive
/// byte range through the video cache, written as it arrives.
enum VideoCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "video", summary: "read a byte range through the video cache, serve it to players, prefetch seconds", usage: usage, run: run)

    static let usage = """
        usage: douyinkit video get <url> --range <first>-<last> --dir <dir> [--out <file>]
               douyinkit video serve --dir <dir> [--port P]
               douyinkit video prefetch <url> --dir <dir> --seconds S [--max-bandwidth B]
        """

    static func run(_ arguments: [String]) async throws {
        if arguments.first == "serve" { return try await VideoServeCommand.run(Array(arguments.dropFirst())) }
        if arguments.first == "prefetch" { return try await VideoPrefetchCommand.run(Array(arguments.dropFirst())) }
        var options = try Options(arguments, usage: usage)
        guard options.positional.first == "get" else { throw ToolError.usage(usage) }
        guard options.positional.count >= 2 else { throw options.missing("<url>") }
        guard options.positional.count == 2 else { throw ToolError.usage(usage) }
        let url = try options.url("<url>", options.positional[1])
        let rangeText = try options.required("--range", "<first>-<last>")
        let directory = try options.required("--dir", "<dir>")
        guard let range = parseRange(rangeText) else {
            throw ToolError.usage("--range must be <first>-<last>, whole numbers with 0 ≤ first ≤ last < \(Int64.max), not \"\(rangeText)\"\n\(usage)")
        }
        let destination = try BinaryOutput.resolve(out: options.string("--out"))
        try options.finish()

        let origin: any VideoOrigin = url.isFileURL ? FileOrigin() : HTTPOrigin()
        let cache: VideoCache
        do {
            var configuration = VideoCache.Configuration()
            configuration.log = options.log
            cache = try VideoCache(directory: URL(fileURLWithPath: directory), sizeLimit: 4 << 30, origin: origin, configuration: configuration)
        } catch {
            throw ToolError.failed(error.description)
        }
        let cachedBefore = cache.cachedRanges(for: url).ranges.reduce(Int64(0)) { total, held in
            total + max(0, min(held.upperBound, range.upperBound) - max(held.lowerBound, range.lowerBound))
        }
        let reader = cache.reader(for: url)
        defer { reader.close() }
        if let reason = reader.uncachedReason {
            // Said up front: a second process on one directory reads without storing.
            printError("cache=uncached reason=\(reason)")
        }
        if case .file(let outputPath) = destination {
            // Checked before the first fetch; the destination changes only once all arrived.
            let file = try OutputFile(path: outputPath)
            try await stream(range, from: reader) { try file.write($0) }
            try file.commit()
        } else {
            try await stream(range, from: reader) { FileHandle.standardOutput.write($0) }
        }
        printError("origin_bytes=\(cache.statistics.originBytes) cached_bytes=\(cachedBefore)")
    }

    /// Hands `range` to `write` as it arrives; a range starting past the end is an error
    /// naming the resource's length.
    private static func stream(_ range: Range<Int64>, from reader: VideoReader, to write: (Data) throws -> Void) async throws {
        var delivered: Int64 = 0
        do {
            for try await chunk in reader.chunks(range) {
                try write(chunk)
                delivered += Int64(chunk.count)
            }
            if delivered == 0, let length = try await reader.contentInfo().length, range.lowerBound >= length {
                throw ToolError.failed("--range \(range.lowerBound)-\(range.upperBound - 1) starts past the end: the resource is \(length) bytes")
            }
            // Exactly the range (clipped to the resource's length) or a failure: never a short
            // answer with exit 0.
            let length = reader.knownContentInfo?.length
            let expected = length.map { max(0, min(range.upperBound, $0) - range.lowerBound) } ?? Int64(range.count)
            guard delivered == expected else {
                throw ToolError.failed("delivered \(delivered) of the \(expected) bytes of --range \(range.lowerBound)-\(range.upperBound - 1)")
            }
        } catch let error as VideoCacheError {
            throw ToolError.failed(error.description)
        }
    }

    /// `first-last`, inclusive, as a half-open range.
    static func parseRange(_ text: String) -> Range<Int64>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]),
              first >= 0, last >= first, last < Int64.max else { return nil }
        return first..<(last + 1)
    }
}
