import DouyinKit
import Foundation

/// `douyinkit cache get <url> --dir <dir> [--out <file>]`: one fetch through the two-tier cache.
enum CacheCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "cache", summary: "fetch one URL through the two-tier image cache", usage: usage, run: run)

    static let usage = "usage: douyinkit cache get <url> --dir <dir> [--out <file>]"

    static func run(_ arguments: [String]) async throws {
        var options = try Options(arguments, usage: usage)
        guard options.positional.first == "get" else { throw ToolError.usage(usage) }
        guard options.positional.count >= 2 else { throw options.missing("<url>") }
        guard options.positional.count == 2 else { throw ToolError.usage(usage) }
        let url = try options.url("<url>", options.positional[1])
        let directory = try options.required("--dir", "<dir>")
        let destination = try BinaryOutput.resolve(out: options.string("--out"))
        try options.finish()
        // Checked before the fetch, so a refused --out costs no download; the file itself is
        // created only once the bytes are here, so a failed download leaves nothing behind.
        var output: OutputFile? = nil
        if case .file(let outputPath) = destination { output = try OutputFile(path: outputPath) }
        let cache: TwoTierCache
        do {
            // The URL is the user's own argument, not data from a feed: file:// is explicit
            // local use here (regular files only; a FIFO is refused, never waited on).
            let configuration = TwoTierCache.Configuration(downloader: .init(allowsFileURLs: true), log: options.log)
            cache = try TwoTierCache(directory: URL(fileURLWithPath: directory), configuration: configuration)
        } catch {
            throw ToolError.failed("\(error)")
        }
        let (data, source) = try await cache.fetch(url)
        printError("source=\(source.rawValue)")
        if let file = output.take() {
            try file.write(data)
            try file.commit()
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
