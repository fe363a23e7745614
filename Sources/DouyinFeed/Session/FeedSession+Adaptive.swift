import DouyinSupport
import DouyinVideoCache
import Foundation

/// The adaptive policy performed: ``AdaptivePlan`` decides, this runs at most one playing
/// fetch and one preload at a time, re-planning whenever a fetch ends, the item changes, the
/// player reports its position, or the playing item's cached bytes change (the cache's change
/// stream: bytes the app's own player stores count as soon as they land). No timer of its own.
extension FeedSession {
    /// The items ahead of `index` in the learned window.
    func window(after index: Int, profile: SessionProfile) -> [Int] {
        let last = min(items.count - 1, index + profile.window)
        return last > index ? Array((index + 1)...last) : []
    }

    func showAdaptive(_ index: Int, at time: Duration) {
        let estimate = meter.estimate
        let safety = configuration.gearSafety
        let decided = state.withLock { $0.known[index] }
        var switched: Gear?
        if let decided, items[index].gears.count > 1 {
            // The gear chosen at preload time is kept unless it would stall now.
            let held = videoCache.cachedRanges(for: decided.gear.url).heldRunEnd(from: 0) ?? 0
            let remaining = items[index].duration ?? .seconds(10)
            if Gear.wouldStall(decided.gear, heldAhead: held, remaining: remaining, estimate: estimate, safety: safety),
               let lower = Gear.choose(from: items[index].gears, estimate: estimate, safety: safety), lower.bitRate < decided.gear.bitRate {
                switched = lower
            }
        }
        let stops = state.withLock { state -> [Lane] in
            if let shownAt = state.shownAt { state.profile.viewed(time - shownAt) }
            state.current = index
            state.generation += 1
            state.shownAt = time
            state.readPosition = nil
            if let switched {
                state.known[index] = Known(gear: switched)
                state.gearSwitches += 1
            } else if state.known[index] == nil, let gear = Gear.choose(from: items[index].gears, estimate: estimate, safety: safety)
                        ?? items[index].playGear() {
                state.known[index] = Known(gear: gear)
            }
            var stops: [Lane] = []
            if let lane = state.playing {
                stops.append(lane)
                state.playing = nil
            }
            // A preload of the item now shown or still in the window goes on; others stop.
            if let lane = state.preload, lane.fetch.index != index, !window(after: index, profile: state.profile).contains(lane.fetch.index) {
                stops.append(lane)
                state.preload = nil
            }
            return stops
        }
        for lane in stops { Self.stop(lane) }
        if let switched, let decided {
            log(.notice, "gear switched down", ["index": String(index), "from": String(decided.gear.bitRate), "to": String(switched.bitRate),
                                               "estimate": String(estimate)])
        }
        if let url = state.withLock({ $0.known[index]?.gear.url }) { watch(url) }
        kick()
    }

    /// Follows `url`'s cached bytes (the playing item's gear) and re-plans on each change,
    /// replacing the previous item's watcher.
    private func watch(_ url: URL) {
        let changes = videoCache.changes(for: url)
        let task = Task { [weak self] in
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                state.withLock { $0.changeReplans += 1 }
                kick()
            }
        }
        let replaced = state.withLock { state -> Task<Void, Never>? in
            // A session already cancelled keeps no watcher.
            guard !state.closed else { return task }
            defer { state.watcher = task }
            return state.watcher
        }
        replaced?.cancel()
    }

    /// Re-plans and starts what the rules ask for, if its lane is free.
    func kick() {
        let estimate = meter.estimate
        let safety = configuration.gearSafety
        // Gears for window items not decided yet, chosen now: the preload's gear is the one played.
        let snapshot = state.withLock { state -> (Int, Int, Int64?, [Int: Known], SessionProfile, Bool, Bool)? in
            guard !state.closed, let current = state.current else { return nil }
            for index in window(after: current, profile: state.profile) where state.known[index] == nil {
                if let gear = Gear.choose(from: items[index].gears, estimate: estimate, safety: safety) ?? items[index].playGear() {
                    state.known[index] = Known(gear: gear)
                }
            }
            // An item whose fetch failed in this generation is left out until the next swipe:
            // re-planned at once, it would be asked again in a tight loop.
            let usable = state.known.filter { state.failedIn[$0.key] != state.generation }
            return (current, state.generation, state.readPosition, usable, state.profile, state.playing != nil, state.preload != nil)
        }
        guard let snapshot else { return }
        let (current, generation, readPosition, known, profile, playingBusy, preloadBusy) = snapshot
        guard let playing = planItem(current, known) else { return }
        var next: (AdaptivePlan.Fetch, isPlaying: Bool)?
        // The preload that would come next, and what it costs the playing item: held ahead first.
        let candidates = window(after: current, profile: profile).compactMap { planItem($0, known) }
        let pending = preloadBusy ? nil : AdaptivePlan.preloadFetch(window: candidates, depth: profile.depth, estimate: estimate,
                                                                    playingBitRate: playing.gear.bitRate, configuration: configuration.plan)
        let reserve = pending.map {
            AdaptivePlan.reserve(for: $0, nearest: candidates.first?.index, estimate: estimate, configuration: configuration.plan)
        } ?? .zero
        if !playingBusy, let fetch = AdaptivePlan.playingFetch(playing, readPosition: readPosition, estimate: estimate, reserve: reserve,
                                                               configuration: configuration.plan) {
            next = (fetch, true)
        } else if !playingBusy, let pending,
                  AdaptivePlan.admitsPreload(playing, readPosition: readPosition, estimate: estimate, reserve: reserve, configuration: configuration.plan) {
            next = (pending, false)
        }
        guard let next else { return }
        let (fetch, isPlaying) = next
        state.withLock { state in
            guard !state.closed, state.generation == generation, (isPlaying ? state.playing : state.preload) == nil else { return }
            state.nextID += 1
            let id = state.nextID
            let reader = videoCache.reader(for: fetch.url)
            let task = Task { [self] in await run(fetch, id: id, lane: isPlaying ? "playing" : "preload", reader: reader, generation: generation) }
            let lane = Lane(id: id, fetch: fetch, task: task, reader: reader)
            if isPlaying { state.playing = lane } else { state.preload = lane }
        }
    }

    private func planItem(_ index: Int, _ known: [Int: Known]) -> AdaptivePlan.Item? {
        guard let entry = known[index] else { return nil }
        // A length the cache learnt before this session (a warm cache) counts too: without it
        // the playing item of a warm cache would never be topped up.
        let length = entry.length ?? videoCache.contentInfo(for: entry.gear.url)?.length
        return AdaptivePlan.Item(index: index, gear: entry.gear, length: length, start: entry.start,
                                 held: videoCache.cachedRanges(for: entry.gear.url))
    }

    /// One fetch; afterwards learns the file's length and layout (or that it failed), frees its
    /// lane and re-plans.
    /// `lane` names the lane for the log ("playing" or "preload").
    private func run(_ fetch: AdaptivePlan.Fetch, id: Int, lane: String, reader: VideoReader, generation: Int) async {
        // Said by the fetch's own task, so it always comes before that fetch's "fetch failed".
        log(.debug, "fetch started", ["index": String(fetch.index), "purpose": "\(fetch.purpose)", "lane": lane,
                                      "range": "\(fetch.range.lowerBound)-\(fetch.range.upperBound - 1)", "url": fetch.url.absoluteString])
        var failed = false
        do {
            try await reader.prefetch(fetch.range)
        } catch {
            // A lane stopped by a swipe or cancel() is cancelled first: that is no failure.
            failed = !Task.isCancelled
            if failed { log(.notice, "fetch failed", ["index": String(fetch.index), "url": fetch.url.absoluteString, "error": "\(error)"]) }
        }
        let length = reader.knownContentInfo?.length
        var start: StartBytes?
        let needsStart = state.withLock { $0.known[fetch.index]?.start == nil }
        if needsStart, let length, let gear = state.withLock({ $0.known[fetch.index]?.gear }), gear.url == fetch.url {
            start = await Self.startBytes(of: reader, length: length, gear: gear, probe: fetch.range)
        }
        reader.close()
        state.withLock { state in
            if state.playing?.id == id { state.playing = nil }
            if state.preload?.id == id { state.preload = nil }
            if failed {
                state.failedFetches += 1
                state.failedIn[fetch.index] = generation
            }
            guard var entry = state.known[fetch.index], entry.gear.url == fetch.url else { return }
            if entry.length == nil { entry.length = length }
            if entry.start == nil { entry.start = start }
            state.known[fetch.index] = entry
        }
        kick()
    }

    /// The start bytes of a file from the box headers it holds; when they cannot be told but
    /// the probe is held, the probe itself (a file that is not an MP4 starts with its first bytes).
    private static func startBytes(of reader: VideoReader, length: Int64, gear: Gear, probe: Range<Int64>) async -> StartBytes? {
        let held = reader.cachedRanges
        let layout = await StartBytes.layout(length: length) { offset in
            let end = min(offset + 16, length)
            guard offset < end, held.contains(offset..<end) else { return nil }
            return try? await reader.read(offset..<end)
        }
        if let layout { return StartBytes(layout: layout, length: length, bitRate: gear.bitRate) }
        guard probe.lowerBound == 0, held.contains(probe.clamped(to: 0..<length)) else { return nil }
        return StartBytes(head: probe.clamped(to: 0..<length), tail: nil)
    }
}

extension FeedSession.Known {
    init(gear: Gear) {
        self.init(gear: gear, length: nil, start: nil)
    }
}
