import DouyinKit
import Foundation

/// `douyinkit video get <url> --range <first>-<last> --dir <dir> [--out <file>]`: an inclusive
/// byte range through the video cache, written as it arrives.
enum VideoCommand {
    static let usage = "usage: douyinkit video get <url> --range <first>-<last> --dir <dir> [--out <file>]"

    static func run(_ arguments: [String]) async throws {
        var options = try Options(arguments, usage: usage)
        guard options.positional.count == 2, options.positional[0] == "get",
              let url = URL(string: options.positional[1]), url.scheme != nil else {
            throw ToolError.usage(usage)
        }
        guard let directory = options.string("--dir"), let rangeText = options.string("--range") else {
            throw ToolError.usage(usage)
        }
        guard let range = parseRange(rangeText) else {
            throw ToolError.usage("--range must be <first>-<last> with first ≤ last, not \"\(rangeText)\"\n\(usage)")
        }
        let outputPath = options.string("--out")
        try options.finish()

        let origin: any VideoOrigin = url.isFileURL ? FileOrigin() : URLSessionOrigin()
        let cache: VideoCache
        do {
            cache = try VideoCache(directory: URL(fileURLWithPath: directory), sizeLimit: 4 << 30, origin: origin)
        } catch {
            throw ToolError.failed(error.description)
        }
        let cachedBefore = cache.cachedRanges(for: url).ranges.reduce(Int64(0)) { total, held in
            total + max(0, min(held.upperBound, range.upperBound) - max(held.lowerBound, range.lowerBound))
        }
        let output: FileHandle
        if let outputPath {
            guard FileManager.default.createFile(atPath: outputPath, contents: nil),
                  let handle = FileHandle(forWritingAtPath: outputPath) else {
                throw ToolError.failed("cannot write \(outputPath)")
            }
            output = handle
        } else {
            output = FileHandle.standardOutput
        }
        let reader = cache.reader(for: url)
        defer { reader.close() }
        do {
            for try await chunk in reader.chunks(range) { output.write(chunk) }
        } catch let error as VideoCacheError {
            throw ToolError.failed(error.description)
        }
        printError("origin_bytes=\(cache.statistics.originBytes) cached_bytes=\(cachedBefore)")
    }

    /// `first-last`, inclusive, as a half-open range.
    static func parseRange(_ text: String) -> Range<Int64>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]),
              first >= 0, last >= first, last < Int64.max else { return nil }
        return first..<(last + 1)
    }
}
