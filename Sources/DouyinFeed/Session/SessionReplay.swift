import DouyinVideoCache
import Foundation

/// Plays a ``SwipeTrace`` through a ``FeedSession`` in real time, with the player as the
/// model the verb defines: an item starts once its ``StartBytes`` are held; its read position
/// then moves at the gear's bitrate (``PlaybackModel``), reported to the session every
/// ``tick`` as a player's periodic time observer would; a stall is time the position waits at
/// the end of the bytes held.
///
/// Under ``FeedSession/Policy/fixed`` and ``FeedSession/Policy/none`` the player reads the
/// playing file as AVPlayer does — its head, the `moov` tail when the file needs it, then the
/// rest as one read — one request at a time, so no byte range is fetched twice; under
/// ``FeedSession/Policy/adaptive`` the session fetches for it.
public enum SessionReplay {
    /// How often the player reports its position: 100 ms.
    public static let tick: Duration = .milliseconds(100)

    private enum Signal: Sendable {
        case arrival(URL)
        case tick(Int)
        case deadline(Int)
    }

    /// Replays `trace` (items must be in the session's feed) and returns what it measured;
    /// `onView` gets each view as it ends. The session is cancelled at the end.
    public static func run(_ session: FeedSession, trace: SwipeTrace, onView: (SessionReport.View) -> Void = { _ in }) async -> SessionReport {
        let clock = ContinuousClock()
        let (signals, feed) = AsyncStream<Signal>.makeStream()
        let arrivals = session.origin.arrivals()
        let forwarder = Task {
            for await url in arrivals { feed.yield(.arrival(url)) }
        }
        var iterator = signals.makeAsyncIterator()
        var views: [SessionReport.View] = []
        var played: [URL: ByteRangeSet] = [:]
        var onScreen: [(url: URL, from: ContinuousClock.Instant, to: ContinuousClock.Instant)] = []
        for (offset, swipe) in trace.swipes.enumerated() {
            let number = offset + 1
            let shown = clock.now
            let shownUnix = Int64(Date().timeIntervalSince1970 * 1000)
            session.show(swipe.item)
            guard let gear = session.gear(for: swipe.item) else { continue }
            let watch = Duration.milliseconds(max(0, swipe.watchMilliseconds))
            let deadline = shown + watch
            let timer = Task {
                var next = shown
                while !Task.isCancelled {
                    next += tick
                    guard next < deadline else { break }
                    try? await clock.sleep(until: next)
                    feed.yield(.tick(number))
                }
                try? await clock.sleep(until: deadline)
                if !Task.isCancelled { feed.yield(.deadline(number)) }
            }
            var player = Player(session: session, gear: gear)
            await player.update(at: .zero, report: true)
            loop: while let signal = await iterator.next() {
                let elapsed = shown.duration(to: clock.now)
                switch signal {
                case .deadline(let n) where n == number: break loop
                case .tick(let n) where n == number: await player.update(at: elapsed, report: true)
                case .arrival(let url) where url == gear.url: await player.update(at: elapsed, report: false)
                default: continue
                }
            }
            timer.cancel()
            onScreen.append((gear.url, shown, clock.now))
            let view = player.finish(number: number, item: swipe.item, shownAt: shownUnix, watch: watch, played: &played)
            views.append(view)
            onView(view)
        }
        session.cancel()
        forwarder.cancel()
        feed.finish()
        let ledger = session.origin.ledger
        var playedReceived: Int64 = 0
        for (url, received) in ledger.received {
            for range in played[url]?.ranges ?? [] {
                playedReceived += Int64(range.count) - received.missing(in: range).reduce(0) { $0 + Int64($1.count) }
            }
        }
        var report = SessionReport(views: views, originBytes: ledger.bodyBytes, duplicateBytes: ledger.duplicateBytes,
                                   unplayedBytes: max(0, ledger.bodyBytes - playedReceived), gearSwitches: session.statistics.gearSwitches)
        // Where the unplayed bytes lie: files no view showed, of items shown or not.
        // (A feed may list one file under two items: it counts as shown if either was.)
        let shownURLs = Set(views.map(\.url))
        let shownItemsURLs = Set(views.flatMap { session.items[$0.item].gears.map(\.url) })
        for (url, received) in ledger.received where !shownURLs.contains(url) {
            if shownItemsURLs.contains(url) {
                report.unplayedOfOtherGears += received.byteCount
            } else {
                report.unplayedOfItemsNotShown += received.byteCount
            }
        }
        for transfer in ledger.transfers {
            guard let first = transfer.firstChunk, let last = transfer.lastChunk,
                  onScreen.contains(where: { $0.url == transfer.url && $0.from <= transfer.sent && transfer.sent < $0.to }) else { continue }
            report.playingTransferBytes += transfer.bytesAfterFirst
            report.playingTransferTime += first.duration(to: last)
        }
        return report
    }

    /// The player of one view.
    private struct Player {
        let session: FeedSession
        let gear: Gear
        let reader: VideoReader
        var reading: Task<Void, Never>?
        /// What the fixed and none policies' player reads first: 64 KiB, the box headers.
        static let headBytes: Int64 = 64 * 1024
        var length: Int64?
        var start: StartBytes?
        var startedAt: Duration?
        var model: PlaybackModel?

        init(session: FeedSession, gear: Gear) {
            self.session = session
            self.gear = gear
            reader = session.videoCache.reader(for: gear.url)
            if session.configuration.policy != .adaptive {
                reading = Task { [reader] in await Self.readAsAVPlayer(reader) }
            }
        }

        /// The fixed and none policies' player: one read of the whole file, as AVPlayer does,
        /// but one request at a time so that no byte is asked for twice: the head (its box
        /// headers tell the layout), then the `moov` tail when `mdat` comes first, then the
        /// rest as one read (held parts served from the cache, the rest fetched).
        static func readAsAVPlayer(_ reader: VideoReader) async {
            guard (try? await reader.read(0..<headBytes)) != nil, let length = reader.knownContentInfo?.length else { return }
            let layout = await StartBytes.layout(length: length) { offset in
                try? await reader.read(offset..<min(offset + 16, length))
            }
            var end = length
            if case .moovAtEnd(_, let tail) = layout {
                guard (try? await reader.prefetch(tail)) != nil else { return }
                end = tail.lowerBound
            }
            do {
                for try await _ in reader.chunks(0..<end) {}
            } catch {}
        }

        /// Bytes held: in the cache, or arrived and about to be stored.
        func held() -> ByteRangeSet {
            var held = session.videoCache.cachedRanges(for: gear.url)
            for range in session.origin.ledger.received[gear.url]?.ranges ?? [] { held.insert(range) }
            return held
        }

        mutating func update(at time: Duration, report: Bool) async {
            let held = held()
            if length == nil { length = reader.knownContentInfo?.length }
            if start == nil, let length {
                let cached = session.videoCache.cachedRanges(for: gear.url)
                let reader = reader
                if let layout = await StartBytes.layout(length: length, header: { offset in
                    let end = min(offset + 16, length)
                    guard offset < end, cached.contains(offset..<end) else { return nil }
                    return try? await reader.read(offset..<end)
                }) {
                    start = StartBytes(layout: layout, length: length, bitRate: gear.bitRate)
                }
            }
            if model == nil, let start, let length, start.ranges.allSatisfy({ held.contains($0) }) {
                startedAt = time
                let offset = start.head.upperBound
                model = PlaybackModel(startOffset: offset, length: length, bitRate: gear.bitRate, startedAt: time,
                                      heldEnd: held.heldRunEnd(from: offset) ?? offset)
                await session.playbackPosition(offset)
                return
            }
            guard var model else { return }
            model.held(upTo: held.heldRunEnd(from: model.startOffset) ?? model.startOffset, at: time)
            self.model = model
            if report { await session.playbackPosition(model.position(at: time)) }
        }

        mutating func finish(number: Int, item: Int, shownAt: Int64, watch: Duration, played: inout [URL: ByteRangeSet]) -> SessionReport.View {
            reading?.cancel()
            reader.close()
            var view = SessionReport.View(number: number, item: item, shownAtUnixMilliseconds: shownAt, url: gear.url, bitRate: gear.bitRate,
                                          start: watch, started: false, stall: .zero, watch: watch, playedBytes: 0)
            guard let model, let startedAt, let start else { return view }
            let position = model.position(at: watch)
            let tail = start.tail ?? 0..<0
            view.started = true
            view.start = startedAt
            view.stall = model.stall(until: watch)
            view.playedBytes = position + Int64(tail.count)
            played[gear.url, default: ByteRangeSet()].insert(0..<position)
            played[gear.url, default: ByteRangeSet()].insert(tail)
            return view
        }
    }
}
