import DouyinKit
import Foundation

/// `douyinkit feed preload <feed.json> --index I --dir <dir> [--ahead N] [--behind M] [--bytes B]`:
/// warms `<dir>/video` and `<dir>/images` for the window around item I, as the feed's
/// preloader would with nothing playing, and prints one line a resource in plan order.
enum FeedCommand {
    static let usage = "usage: douyinkit feed preload <feed.json> --index I --dir <dir> [--ahead N] [--behind M] [--bytes B]"

    static func run(_ arguments: [String]) async throws {
        var options = try Options(arguments, usage: usage)
        guard options.positional.count == 2, options.positional[0] == "preload" else { throw ToolError.usage(usage) }
        guard let directory = options.string("--dir"), let indexText = options.string("--index") else { throw ToolError.usage(usage) }
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
            items = try FeedItem.items(fromFeedJSON: try Data(contentsOf: URL(fileURLWithPath: feedPath)))
        } catch let error as DecodingError {
            throw ToolError.failed("\(feedPath): \(error.summary)")
        } catch {
            throw ToolError.failed("cannot read \(feedPath): \(error.localizedDescription)")
        }
        guard items.indices.contains(index) else {
            throw ToolError.failed("--index \(index) is outside the feed's \(items.count) items")
        }

        let root = URL(fileURLWithPath: directory)
        let videoCache: VideoCache
        let imageCache: TwoTierCache
        do {
            videoCache = try VideoCache(directory: root.appendingPathComponent("video"), sizeLimit: 4 << 30)
        } catch {
            throw ToolError.failed(error.description)
        }
        do {
            imageCache = try TwoTierCache(directory: root.appendingPathComponent("images"))
        } catch {
            throw ToolError.failed(error.description)
        }

        var configuration = FeedPreloader.Configuration()
        configuration.planner = planner
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
            if let failure = event.failure {
                failures += 1
                printError("error: \(kind) \(job.index) \(job.url.absoluteString): \(failure)")
                continue
            }
            print("\(kind) \(job.index) \(job.url.absoluteString) bytes=\(event.bytes) source=\(event.fetched ? "network" : "cached")")
        }
        if failures > 0 { throw ToolError.failed("\(failures) of \(order.count) resources failed") }
    }
}
