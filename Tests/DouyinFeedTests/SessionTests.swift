import DouyinFeed
import DouyinTestSupport
import DouyinVideoCache
import Foundation
import Testing

/// Short seeded sessions end to end: ffmpeg clips, the shaped loopback origin, real caches,
/// the real preloaders. No timing asserts: what is checked holds at any speed.
@Suite(.serialized) struct SessionTests {
    /// The test bed: 4 clips of 3 s in three gears, 8 items, a link of 16 Mbit/s.
    struct Bed {
        let folder: TemporaryDirectory
        let media: SessionMedia
        let origin: ShapedOrigin
        let feed: Data
        let items: [SessionItem]
    }

    static func bed() async throws -> Bed {
        let folder = try TemporaryDirectory()
        let media = try await SessionMedia.generate(in: folder.appending("media"), count: 4, seconds: 3)
        let origin = try await ShapedOrigin.start(root: media.directory, rate: 16_000_000)
        let feed = try media.feedJSON(base: origin.base, items: 8)
        return Bed(folder: folder, media: media, origin: origin, feed: feed, items: try SessionItem.items(fromFeedJSON: feed))
    }

    static let trace = SwipeTrace.generated(seed: 24, swipes: 6, itemCount: 8) { _ in .seconds(3) }

    @Test func theFeedsGearsAreRead() async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        #expect(bed.items.count == 8)
        #expect(bed.items.allSatisfy { $0.gears.count == 3 && $0.duration == .seconds(3) })
        #expect(bed.items[0].playGear() == bed.items[0].gears[1], "play_addr is the mid gear")
        let rates = bed.media.clips.flatMap(\.gears).map(\.bitRate)
        #expect(rates.allSatisfy { $0 > 400_000 && $0 < 3_000_000 }, "\(rates)")
    }

    /// The adaptive session: each shown item's bytes all come from the one gear it plays, no
    /// range of a URL arrives twice, and what the report counts is what the origin sent.
    @Test func adaptivePlaysOneGearAnItemAndFetchesNothingTwice() async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        let session = try FeedSession(items: bed.items, directory: bed.folder.appending("cache"))
        let report = await SessionReplay.run(session, trace: Self.trace)

        #expect(report.views.count == Self.trace.swipes.count)
        #expect(report.duplicateBytes == 0)
        #expect(report.views.allSatisfy { view in bed.items[view.item].gears.contains { $0.url == view.url } })
        let stats = try await bed.origin.stats()
        #expect(stats.bodyBytes >= report.originBytes, "the origin sent at least what arrived")
        let paths = stats.responses.compactMap { triple -> String? in
            if case .path(let path) = triple.first { return path }
            return nil
        }
        for view in report.views {
            let prefix = "/i\(view.item)/"
            let fetched = Set(paths.filter { $0.hasPrefix(prefix) })
            #expect(fetched.isSubset(of: [view.url.path]), "item \(view.item) played \(view.url.path), fetched \(fetched)")
        }
        #expect(report.views.contains { $0.started }, "something played")
        // Where the unplayed bytes lie: none in a gear other than the one shown (one gear an
        // item); in items never shown, every byte they received (the window past the last view).
        #expect(report.unplayedOfOtherGears == 0)
        let shown = Set(report.views.flatMap { bed.items[$0.item].gears.map(\.url) })
        let unshown = session.origin.ledger.received.filter { !shown.contains($0.key) }
        #expect(report.unplayedOfItemsNotShown == unshown.values.reduce(0) { $0 + $1.byteCount })
        #expect(report.unplayedOfItemsNotShown <= report.unplayedBytes)
    }

    /// No byte range of one URL arrives twice, whatever the policy: the fixed and none
    /// policies' AVPlayer-like reader asks for the head, the `moov` tail, then the rest, one
    /// request at a time (its 0-1 probe and tail read used to overlap its whole-file read).
    @Test(arguments: FeedSession.Policy.allCases)
    func noPolicyFetchesARangeTwice(policy: FeedSession.Policy) async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        var configuration = FeedSession.Configuration()
        configuration.policy = policy
        let session = try FeedSession(items: bed.items, directory: bed.folder.appending("cache"), configuration: configuration)
        let report = await SessionReplay.run(session, trace: Self.trace)
        #expect(report.duplicateBytes == 0, "\(policy): \(report.duplicateBytes) bytes twice")
        #expect(report.views.contains { $0.started }, "something played")
    }

    /// A session over a warm cache (bytes and length stored by an earlier run) tops its playing
    /// item up from what is held: the length comes from the cache, not only from its own fetches.
    @Test func aWarmCachesPlayingItemIsToppedUp() async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        let directory = bed.folder.appending("cache")
        let probe = try FeedSession(items: bed.items, directory: bed.folder.appending("probe"))
        let url = try #require(probe.gear(for: 0)).url
        probe.cancel()
        let half: Int64
        do {
            let warm = try VideoCache(directory: directory, sizeLimit: 1 << 30, origin: URLSessionOrigin())
            let reader = warm.reader(for: url)
            let length = try #require(try await reader.contentInfo().length)
            half = length / 2
            _ = try await reader.read(0..<half)
            reader.close()
        }
        let session = try FeedSession(items: bed.items, directory: directory)
        defer { session.cancel() }
        session.show(0)
        #expect(session.gear(for: 0)?.url == url)
        await session.playbackPosition(half - 1_000)
        let toppedUp = await waitUntil { (session.videoCache.cachedRanges(for: url).heldRunEnd(from: 0) ?? 0) > half }
        #expect(toppedUp, "held to \(session.videoCache.cachedRanges(for: url)), half \(half)")
    }

    /// The adaptive session re-plans on the playing item's change stream: bytes another reader
    /// of its cache stores (an app's player reading through it) start a re-plan, with no
    /// position report and no fetch of its own ending.
    @Test func bytesAnotherReaderStoresReplanTheSession() async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        let session = try FeedSession(items: bed.items, directory: bed.folder.appending("cache"))
        defer { session.cancel() }
        session.show(0)
        let url = try #require(session.gear(for: 0)).url
        // The session fetches the head only (no position is reported): settle, then store the tail.
        #expect(await waitUntil { session.origin.ledger.transfers.allSatisfy { $0.lastChunk != nil } && session.origin.ledger.requests > 0 })
        let before = session.statistics.changeReplans
        let reader = session.videoCache.reader(for: url)
        let length = try #require(try await reader.contentInfo().length)
        try await reader.prefetch((length - 20_000)..<length)
        reader.close()
        let replanned = await waitUntil { session.statistics.changeReplans > before }
        #expect(replanned, "re-plans on changes: \(before) before, \(session.statistics.changeReplans) after")
    }

    /// An origin that fails at once (nginx's 404: it serves no file here) costs one request per
    /// item and swipe: the failed item is not planned again before the next swipe. Before, the
    /// end of each failed fetch re-planned the same fetch at once, a loop of requests (and a
    /// busy core) until the user swiped.
    @Test func aFailingOriginIsAskedOncePerItemAndSwipe() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let nginx = try await NginxOrigin.start()
        let urls = (0..<4).map { nginx.url("/missing/\($0).mp4") }
        let items = urls.map { SessionItem(playURL: nil, gears: [Gear(url: $0, bitRate: 1_000_000)], duration: .seconds(3)) }
        let session = try FeedSession(items: items, directory: folder.appending("cache"))
        defer { session.cancel() }
        session.show(0)
        #expect(await waitUntil { session.statistics.failedFetches >= 1 })
        await session.playbackPosition(0)   // a position report re-plans too
        session.show(1)
        #expect(await waitUntil { session.statistics.failedFetches >= 2 })
        // Two swipes (show 0, show 1): each item at most once in each (the nearest item's start
        // bytes may be asked as a preload in the first).
        let asked = session.origin.ledger.transfers.map(\.url)
        #expect(asked.filter { $0 == urls[0] }.count >= 1)
        for (index, url) in urls.enumerated() {
            let times = asked.filter { $0 == url }.count
            #expect(times <= 2, "item \(index) asked \(times) times")
        }
    }

    /// A spare reach at Int's edge is clamped to the feed, not added to an index (which
    /// trapped at the first `show` before); lane counts at Int's edge are not summed into an
    /// overflow either. The origin refuses every connection, so the
    /// session's first fetch fails at once and the test waits for that.
    @Test func aSpareReachAtIntsEdgeIsClampedToTheFeed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let items = (0..<4).map { SessionItem(playURL: nil, gears: [Gear(url: URL(string: "http://127.0.0.1:9/\($0).mp4")!, bitRate: 1_000_000)],
                                              duration: .seconds(3)) }
        var configuration = FeedSession.Configuration()
        configuration.profile.spareReach = .max
        // Lane counts at Int's edge too: their sum must not overflow either.
        configuration.plan.playingFetches = .max
        configuration.plan.maximumPreloadFetches = .max
        let session = try FeedSession(items: items, directory: folder.appending("cache"), configuration: configuration)
        defer { session.cancel() }
        session.show(0)
        session.show(3)  // the last item: nothing past it
        #expect(await waitUntil { session.statistics.failedFetches >= 1 })
    }

    /// The verb prints a line a swipe and the summary, exactly in DESIGN.md's format, and the
    /// summary adds up its lines: every figure of it.
    /// An item whose `moov` is at the end has its tail asked for while its probe still
    /// arrives: the layout is read from the probe's first bytes (and the length its answer
    /// gives), not after its last byte. Before, the tail's request went out one time to first
    /// byte after the probe ended. A 1 Mbit/s link stretches the probe of item 1 (clip 1,
    /// `moov` at the end) to over a second; no position is reported, so the session fetches
    /// that item's start bytes only.
    @Test func aTailMoovIsAskedForWhileTheProbeArrives() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let media = try await SessionMedia.generate(in: folder.appending("media"), count: 2, seconds: 3)
        #expect(!media.clips[1].faststart)
        let origin = try await ShapedOrigin.start(root: media.directory, rate: 1_000_000)
        defer { origin.stop() }
        let items = try SessionItem.items(fromFeedJSON: try media.feedJSON(base: origin.base, items: 2))
        let session = try FeedSession(items: items, directory: folder.appending("cache"))
        defer { session.cancel() }
        session.show(1)
        let url = try #require(session.gear(for: 1)).url
        let settled = await waitUntil {
            let transfers = session.origin.ledger.transfers.filter { $0.url == url }
            return transfers.count >= 2 && transfers.allSatisfy { $0.lastChunk != nil }
        }
        let transfers = session.origin.ledger.transfers.filter { $0.url == url }
        #expect(settled, "\(transfers)")
        #expect(session.statistics.earlyLayouts == 1)
        let probe = try #require(transfers.first), tail = try #require(transfers.dropFirst().first)
        let probeEnd = try #require(probe.lastChunk)
        #expect(tail.sent < probeEnd, "the tail's request went out \(tail.sent - probeEnd) after the probe's last byte")
    }

    @Test(arguments: ["fixed", "none"])
    func verbPrintsTheDesignsLines(policy: String) async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        let feedURL = bed.folder.appending("feed.json"), traceURL = bed.folder.appending("trace.json")
        try bed.feed.write(to: feedURL)
        try JSONEncoder().encode(Self.trace).write(to: traceURL)
        let result = try await Tool.run(["feed", "session", feedURL.path, "--trace", traceURL.path,
                                         "--dir", bed.folder.appending("dir").path, "--policy", policy])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == Self.trace.swipes.count + 1)
        var played: Int64 = 0
        for (index, line) in lines.dropLast().enumerated() {
            let match = line.wholeMatch(of: #/swipe (\d+) item=(\d+) at_ms=\d{13} url=(\S+) start_ms=(\d+) stall_ms=\d+ played_bytes=(\d+)/#)
            #expect(match != nil, "\(line)")
            guard let match else { continue }
            #expect(Int(match.1) == index + 1)
            #expect(Int(match.2) == Self.trace.swipes[index].item)
            #expect(match.3 == bed.items[Self.trace.swipes[index].item].playURL?.absoluteString[...], "fixed and none play play_addr")
            #expect(Int(match.4)! <= Self.trace.swipes[index].watchMilliseconds)
            played += Int64(match.5)!
        }
        let summary = try #require(lines.last)
        let match = summary.wholeMatch(of: #/summary swipes=(\d+) ready=(\d+) start_p50_ms=\d+ start_p95_ms=\d+ stall_ms=\d+ origin_bytes=(\d+) played_bytes=(\d+)/#)
        #expect(match != nil, "\(summary)")
        #expect(match.map { Int($0.1) } == Self.trace.swipes.count)
        #expect(match.map { Int64($0.4) } == played)
        // Every figure is what a reader gets from the lines (issue 36 item 4).
        #expect(SessionReportTests.summary(summary) == SessionReportTests.readBack(Array(lines.dropLast())), "\(result.stdout)")
    }

    @Test func aTraceNamingAMissingItemIsRefused() async throws {
        let bed = try await Self.bed()
        defer { bed.origin.stop(); bed.folder.remove() }
        let feedURL = bed.folder.appending("feed.json"), traceURL = bed.folder.appending("trace.json")
        try bed.feed.write(to: feedURL)
        try Data(#"{"swipes": [{"item": 0, "watch_ms": 100}, {"item": 8, "watch_ms": 100}]}"#.utf8).write(to: traceURL)
        let result = try await Tool.run(["feed", "session", feedURL.path, "--trace", traceURL.path, "--dir", bed.folder.appending("d").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("swipe 2 names item 8"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
