import DouyinKit
import Foundation

/// `douyinkit feed preload <feed.json> --index I --dir <dir> [--ahead N] [--behind M] [--bytes B]`:
/// warms `<dir>/video` and `<dir>/images` for the window around item I, as the feed's
/// preloader would with nothing playing, and prints one line a resource in plan order:
///
/// - `<kind> <index> <url> bytes=N source=network|cached`: all N bytes are held and indexed
///   in the cache (`cached`: none had to be fetched).
/// - `video <index> <url> bytes=0 source=uncached reason=<why>`: another process holds the
///   video's cache entry (it stores the bytes); this one fetched them without storing. Not a
///   failure: several `feed preload` runs may share one directory.
/// - `error: <kind> <index> <url>: <why>` on stderr: the resource failed (the fetch failed, a
///   URL that is not http(s), a full or read-only disk, a cache file name taken by a link,
///   FIFO or directory, an index that could not be written). The others are still done; the
///   run exits 1 at the end.
///
/// `--ahead`/`--behind` beyond the feed's ends mean "to the end".
enum FeedCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "feed", summary: "warm the caches around one feed item, or replay a swipe session", usage: usage, run: run)

    static let usage = """
        usage: douyinkit feed preload <feed.json> --index I --dir <dir> [--ahead N] [--behind M] [--bytes B]
          one line a resource: <video|cover|avatar> <index> <url> bytes=N source=network|cached
          (N bytes held and indexed), or for a video whose cache entry another process holds:
          bytes=0 source=uncached reason=<why> (fetched, not stored; not a failure).
          A failed resource is an 'error: <kind> <index> <url>: <why>' line on stderr; the
          others are still done and the run exits 1.
               douyinkit feed session <feed.json> --trace <trace.json> --dir <dir> [--policy adaptive|fixed|none]
          plays a swipe trace in real time through the caches and the preloader: one
          'swipe ...' line a swipe, then one 'summary ...' line.
        """

    static func run(_ arguments: [String]) async throws {
        if arguments.first == "session" { return try await FeedSessionCommand.run(Array(arguments.dropFirst())) }
        var options = try Options(arguments, usage: usage)
        guard options.positional.first == "preload" else { throw ToolError.usage(usage) }
        guard options.positional.count >= 2 else { throw options.missing("<feed.json>") }
        guard options.positional.count == 2 else { throw ToolError.usage(usage) }
        let indexText = try options.required("--index", "I")
        let directory = try options.required("--dir", "<dir>")
        guard let index = Int(indexText) else {
            throw ToolError.usage("--index must be a whole number, not \"\(indexText)\"\n\(usage)")
        }
        var planner = PreloadPlanner.Configuration()
        planner.ahead = try options.integer("--ahead", default: planner.ahead, minimum: 0)
        planner.behind = try options.integer("--behind", default: planner.behind, minimum: 0)
        planner.prefixBytes = Int64(try options.integer("--bytes", default: Int(planner.prefixBytes), minimum: 1))
        // Exactly the first B bytes, as the verb is documented; the preloader in an app also
        // fetches a non-faststart file's moov tail.
        planner.fetchesMoovTail = false
        try options.finish()

        let feedPath = options.positional[1]
        let items: [FeedItem]
        do {
            let data = try InputFile.read(feedPath)
            do {
                items = try FeedItem.items(fromFeedJSON: data)
            } catch let error as DecodingError {
                throw ToolError.failed(TerminalText.escaped("\(feedPath): \(error.summary(decoding: data))"))
            }
        }
        guard items.indices.contains(index) else {
            throw ToolError.failed("--index \(index) is outside the feed's \(items.count) items")
        }
        // A window wider than the feed is the whole feed.
        planner.ahead = min(planner.ahead, items.count)
        planner.behind = min(planner.behind, items.count)

        let root = URL(fileURLWithPath: directory)
        let videoCache: VideoCache
        let imageCache: TwoTierCache
        do {
            var videoConfiguration = VideoCache.Configuration()
            videoConfiguration.log = options.log
            videoCache = try VideoCache(directory: root.appendingPathComponent("video"), sizeLimit: 4 << 30, configuration: videoConfiguration)
        } catch {
            throw ToolError.failed(error.description)
        }
        do {
            imageCache = try TwoTierCache(directory: root.appendingPathComponent("images"),
                                          configuration: TwoTierCache.Configuration(downloader: .init(log: options.log)))
        } catch {
            throw ToolError.failed(error.description)
        }

        var configuration = FeedPreloader.Configuration()
        configuration.planner = planner
        configuration.log = options.log
        let preloader = FeedPreloader(videoCache: videoCache, imageCache: imageCache, configuration: configuration)
        preloader.setItems(items, current: index)
        preloader.preloadWithoutPlayback()
        await preloader.idle()
        let events = preloader.takeEvents()
        preloader.cancel()

        let order = PreloadPlanner.jobs(items: items, current: index, configuration: planner)
        var failures = 0
        for job in order {
            guard let event = events.first(where: { $0.job == job }) else { continue }
            let kind = switch job.kind {
            case .videoPrefix, .videoTail: "video"
            case .cover: "cover"
            case .avatar: "avatar"
            }
            let url = TerminalText.escaped(job.url.absoluteString)
            if let failure = event.failure {
                failures += 1
                printError("error: \(kind) \(job.index) \(url): \(TerminalText.escaped(failure))")
                continue
            }
            if let reason = event.uncachedReason {
                print("\(kind) \(job.index) \(url) bytes=0 source=uncached reason=\(TerminalText.escaped(reason))")
                continue
            }
            print("\(kind) \(job.index) \(url) bytes=\(event.bytes) source=\(event.fetched ? "network" : "cached")")
        }
        if failures > 0 { throw ToolError.failed("\(failures) of \(order.count) resources failed") }
    }
}
