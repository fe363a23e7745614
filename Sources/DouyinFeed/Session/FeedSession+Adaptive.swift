import DouyinSupport
import DouyinVideoCache
import Foundation

/// The adaptive policy performed: ``AdaptivePlan`` decides, this runs at most one playing
/// fetch and one preload at a time, re-planning whenever a fetch ends, the item changes, the
/// player reports its position, or the playing item's cached bytes change (the cache's change
/// stream: bytes the app's own player stores count as soon as they land). No timer of its own.
extension FeedSession {
    /// The items ahead of `index` in the learned window: as many as
    /// ``AdaptivePlan/windowSize(profile:playing:ahead:estimate:configuration:)`` says for the
    /// gear item `index` plays, the next item's (as decided) and the one an item joining the
    /// window would be given now.
    func window(after index: Int, state: State, estimate: Int64, plan: AdaptivePlan.Configuration) -> [Int] {
        guard let playing = state.known[index]?.gear ?? items[index].playGear() else { return [] }
        guard index + 1 < items.count else { return [] }
        let joining = chooseGear(index + 1, estimate: estimate, meanWatch: state.profile.meanWatch, plan: plan)
        let ahead = [state.known[index + 1]?.gear, joining].compactMap { $0 }
        let size = AdaptivePlan.windowSize(profile: state.profile, playing: playing, ahead: ahead, estimate: estimate, configuration: plan)
        let last = min(items.count - 1, index + size)
        return last > index ? Array((index + 1)...last) : []
    }

    /// The items past `ahead` (the window of `index`) up to the profile's
    /// ``SessionProfile/Configuration/spareReach`` ahead of `index`: what
    /// ``AdaptivePlan/spareStartFetch(beyond:estimate:playingBitRate:configuration:)`` fills
    /// while the link would idle.
    func beyond(_ ahead: [Int], after index: Int, state: State) -> [Int] {
        let first = (ahead.last ?? index) + 1
        // Clamped before adding: a reach of Int.max must not overflow.
        let last = index + max(0, min(state.profile.configuration.spareReach, items.count - 1 - index))
        return first <= last ? Array(first...last) : []
    }

    /// The plan's numbers with what the meter measured: the time to first byte (the configured
    /// one until a head has arrived) and the utilization less the throughput's spread.
    func measuredPlan() -> AdaptivePlan.Configuration {
        configuration.plan.measured(by: meter.snapshot)
    }

    /// The gear for item `index` on the link and the viewer's pace as measured now
    /// (``AdaptivePlan/chooseGear(from:estimate:meanWatch:configuration:)``), else `play_addr`'s.
    func chooseGear(_ index: Int, estimate: Int64, meanWatch: Duration, plan: AdaptivePlan.Configuration) -> Gear? {
        AdaptivePlan.chooseGear(from: items[index].gears, estimate: estimate, meanWatch: meanWatch, configuration: plan) ?? items[index].playGear()
    }

    func showAdaptive(_ index: Int, at time: Duration) {
        let estimate = meter.estimate
        let plan = measuredPlan()
        let (decided, meanWatch) = state.withLock { ($0.known[index], $0.profile.meanWatch) }
        var switched: Gear?
        if let decided, items[index].gears.count > 1 {
            // The gear chosen at preload time is kept unless it would stall now.
            let held = videoCache.cachedRanges(for: decided.gear.url).heldRunEnd(from: 0) ?? 0
            let remaining = items[index].duration ?? .seconds(10)
            if Gear.wouldStall(decided.gear, heldAhead: held, remaining: remaining, estimate: estimate, safety: plan.utilization),
               let lower = chooseGear(index, estimate: estimate, meanWatch: meanWatch, plan: plan), lower.bitRate < decided.gear.bitRate {
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
            } else if state.known[index] == nil, let gear = chooseGear(index, estimate: estimate, meanWatch: meanWatch, plan: plan) {
                state.known[index] = Known(gear: gear)
            }
            var stops = state.playing
            state.playing = []
            // A preload of the item now shown or still in reach goes on; others stop.
            let ahead = window(after: index, state: state, estimate: estimate, plan: plan)
            let reach = ahead + beyond(ahead, after: index, state: state)
            let keeps = { (lane: Lane) in lane.fetch.index == index || reach.contains(lane.fetch.index) }
            stops += state.preloads.filter { !keeps($0) }
            state.preloads.removeAll { !keeps($0) }
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

    /// Re-plans and starts what the rules ask for while a lane is free (each start is
    /// planned past the fetches already on their way).
    func kick() {
        let plan = configuration.plan
        // Saturated: lane counts at Int's edge must not overflow the sum (nor a negative one
        // make an invalid range).
        let (lanes, overflow) = max(0, plan.playingFetches).addingReportingOverflow(max(0, plan.preloadFetches, plan.maximumPreloadFetches))
        for _ in 0..<(overflow ? Int.max : lanes) {
            guard startNext() else { return }
        }
    }

    /// Plans once and starts the fetch the rules ask for first, if its lane has room; whether
    /// one was started.
    private func startNext() -> Bool {
        let estimate = meter.estimate
        let plan = measuredPlan()
        // Gears for window items not decided yet, chosen now: the preload's gear is the one played.
        let snapshot = state.withLock { state -> (Int, Int, Int64?, [Int: Known], SessionProfile, [Int], [Int], playing: Int, preloads: [AdaptivePlan.Fetch],
                                                  [AdaptivePlan.Fetch])? in
            guard !state.closed, let current = state.current else { return nil }
            let ahead = window(after: current, state: state, estimate: estimate, plan: plan)
            let past = beyond(ahead, after: current, state: state)
            for index in ahead + past where state.known[index] == nil {
                if let gear = chooseGear(index, estimate: estimate, meanWatch: state.profile.meanWatch, plan: plan) {
                    state.known[index] = Known(gear: gear)
                }
            }
            // An item whose fetch failed in this generation is left out until the next swipe:
            // re-planned at once, it would be asked again in a tight loop.
            let usable = state.known.filter { state.failedIn[$0.key] != state.generation }
            return (current, state.generation, state.readPosition, usable, state.profile, ahead, past, state.playing.count, state.preloads.map(\.fetch),
                    (state.playing + state.preloads).map(\.fetch))
        }
        guard let snapshot else { return false }
        let (current, generation, readPosition, decided, profile, ahead, past, playingCount, preloadsInFlight, inFlight) = snapshot
        let preloadCount = preloadsInFlight.count
        let known = regear(ahead + past, decided, inFlight: inFlight, generation: generation, estimate: estimate, meanWatch: profile.meanWatch, plan: plan)
        // Planned past what is on its way: with two in flight, the second's wait for its first
        // byte overlaps the first's transfer. Admission looks at the bytes really held.
        guard let playing = planItem(current, known), let planned = planItem(current, known, inFlight: inFlight) else { return false }
        var next: (AdaptivePlan.Fetch, isPlaying: Bool)?
        // The preload that would come next, and what it costs the playing item: held ahead first.
        let candidates = ahead.compactMap { planItem($0, known, inFlight: inFlight) }
        func stillToCome(_ fetches: [AdaptivePlan.Fetch]) -> Int64 {
            fetches.reduce(Int64(0)) { sum, fetch in
                sum + videoCache.cachedRanges(for: fetch.url).missing(in: fetch.range).reduce(0) { $0 + Int64($1.count) }
            }
        }
        let remaining = stillToCome(preloadsInFlight)
        let wanted = preloadCount >= max(1, plan.preloadFetches, plan.maximumPreloadFetches) ? nil
            : AdaptivePlan.preloadFetch(window: candidates, depth: profile.depth, estimate: estimate, playingBitRate: playing.gear.bitRate,
                                        configuration: plan)
            ?? AdaptivePlan.spareStartFetch(beyond: past.compactMap { planItem($0, known, inFlight: inFlight) }, estimate: estimate,
                                            playingBitRate: playing.gear.bitRate, configuration: plan)
        let pending = wanted.flatMap { fetch in
            AdaptivePlan.preloadHasRoom(count: preloadCount, remaining: remaining, estimate: estimate, configuration: plan)
                || AdaptivePlan.isNegligible(fetch, estimate: estimate, configuration: plan) ? fetch : nil
        }
        let reserve = pending.map {
            AdaptivePlan.reserve(for: $0, estimate: estimate, configuration: plan)
        } ?? .zero
        if let needed = AdaptivePlan.playingFetch(planned, readPosition: readPosition, estimate: estimate, reserve: reserve, configuration: plan) {
            if playingCount < max(1, plan.playingFetches) { next = (needed, true) }
        } else if let pending,
                  AdaptivePlan.admitsPreload(playing, readPosition: readPosition, estimate: estimate, reserve: reserve, configuration: plan)
                    || AdaptivePlan.admitsStartBesideTopUps(pending, playing: planned, readPosition: readPosition, estimate: estimate,
                                                            remaining: stillToCome(inFlight), configuration: plan) {
            next = (pending, false)
        }
        guard let next else { return false }
        let (fetch, isPlaying) = next
        return state.withLock { state in
            // Started only if nothing changed since the plan: a swipe, a close, another start.
            guard !state.closed, state.generation == generation, state.playing.count == playingCount,
                  state.preloads.count == preloadCount else { return false }
            state.nextID += 1
            let id = state.nextID
            let reader = videoCache.reader(for: fetch.url)
            let task = Task { [self] in await run(fetch, id: id, lane: isPlaying ? "playing" : "preload", reader: reader, generation: generation) }
            let lane = Lane(id: id, fetch: fetch, task: task, reader: reader)
            if isPlaying { state.playing.append(lane) } else { state.preloads.append(lane) }
            return true
        }
    }

    /// `known` with the gear of each window item in `ahead` that nothing is held of nor on its
    /// way chosen again on what is measured now, and the new gears kept: the old ones were
    /// chosen on what was known then (the warm start, a link that has since changed).
    private func regear(_ ahead: [Int], _ known: [Int: Known], inFlight: [AdaptivePlan.Fetch], generation: Int, estimate: Int64,
                        meanWatch: Duration, plan: AdaptivePlan.Configuration) -> [Int: Known] {
        var known = known
        var changed: [(index: Int, from: Gear, to: Gear)] = []
        for index in ahead where !inFlight.contains(where: { $0.index == index }) {
            guard let entry = known[index], videoCache.cachedRanges(for: entry.gear.url).isEmpty,
                  let gear = chooseGear(index, estimate: estimate, meanWatch: meanWatch, plan: plan), gear != entry.gear else { continue }
            known[index] = Known(gear: gear)
            changed.append((index, entry.gear, gear))
        }
        guard !changed.isEmpty else { return known }
        state.withLock { state in
            // Kept only if nothing moved meanwhile: no swipe, no fetch of the item started.
            guard state.generation == generation else { return }
            for change in changed where state.known[change.index]?.gear == change.from
                && !(state.playing + state.preloads).contains(where: { $0.fetch.index == change.index }) {
                state.known[change.index] = Known(gear: change.to)
            }
        }
        return known
    }

    /// What the rules know of item `index`: its gear, length, start bytes and the bytes held,
    /// with those of `inFlight` fetches of its gear counted as held.
    private func planItem(_ index: Int, _ known: [Int: Known], inFlight: [AdaptivePlan.Fetch] = []) -> AdaptivePlan.Item? {
        guard let entry = known[index] else { return nil }
        // A length the cache learnt before this session (a warm cache) counts too: without it
        // the playing item of a warm cache would never be topped up.
        let length = entry.length ?? videoCache.contentInfo(for: entry.gear.url)?.length
        var held = videoCache.cachedRanges(for: entry.gear.url)
        for fetch in inFlight where fetch.url == entry.gear.url { held.insert(fetch.range) }
        return AdaptivePlan.Item(index: index, gear: entry.gear, length: length, start: entry.start, held: held)
    }

    /// One fetch; afterwards learns the file's length and layout (or that it failed), frees its
    /// lane and re-plans.
    /// `lane` names the lane for the log ("playing" or "preload").
    private func run(_ fetch: AdaptivePlan.Fetch, id: Int, lane: String, reader: VideoReader, generation: Int) async {
        // Said by the fetch's own task, so it always comes before that fetch's "fetch failed".
        log(.debug, "fetch started", ["index": String(fetch.index), "purpose": "\(fetch.purpose)", "lane": lane,
                                      "range": "\(fetch.range.lowerBound)-\(fetch.range.upperBound - 1)", "url": fetch.url.absoluteString])
        // A probe's layout is read as its first bytes land, not after its last.
        let early = fetch.range.lowerBound == 0 && state.withLock({ $0.known[fetch.index]?.start == nil })
            ? Task { await learnStartEarly(fetch, reader: reader) } : nil
        var failed = false
        do {
            try await reader.prefetch(fetch.range)
        } catch {
            // A lane stopped by a swipe or cancel() is cancelled first: that is no failure.
            failed = !Task.isCancelled
            if failed { log(.notice, "fetch failed", ["index": String(fetch.index), "url": fetch.url.absoluteString, "error": "\(error)"]) }
        }
        if !failed { log(.debug, "fetch ended", ["index": String(fetch.index), "purpose": "\(fetch.purpose)", "lane": lane]) }
        early?.cancel()
        await early?.value
        let length = reader.knownContentInfo?.length
        var start: StartBytes?
        let needsStart = state.withLock { $0.known[fetch.index]?.start == nil }
        if needsStart, let length, let gear = state.withLock({ $0.known[fetch.index]?.gear }), gear.url == fetch.url {
            start = await Self.startBytes(of: reader, length: length, gear: gear, probe: fetch.range)
        }
        reader.close()
        state.withLock { state in
            state.playing.removeAll { $0.id == id }
            state.preloads.removeAll { $0.id == id }
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

    /// Learns item `fetch.index`'s start bytes while `fetch` (its bytes from 0) still arrives:
    /// the layout needs only the first box headers and the length, so a `moov` at the end (or
    /// start bytes past the probe) is asked for while the probe's media still arrives, instead
    /// of one time to first byte after its last byte. Re-plans once they are learnt; ends then,
    /// when another fetch learnt them first, or when cancelled (at the end of `fetch`).
    private func learnStartEarly(_ fetch: AdaptivePlan.Fetch, reader: VideoReader) async {
        for await content in videoCache.changes(for: fetch.url) {
            guard let gear = state.withLock({ $0.known[fetch.index].flatMap { $0.start == nil ? $0.gear : nil } }),
                  gear.url == fetch.url else { return }
            guard let length = content.length, content.ranges.contains(0..<min(length, 16)),
                  let start = await Self.startBytes(of: reader, length: length, gear: gear, probe: fetch.range) else { continue }
            let learnt = state.withLock { state -> Bool in
                guard var entry = state.known[fetch.index], entry.gear.url == fetch.url, entry.start == nil else { return false }
                entry.length = entry.length ?? length
                entry.start = start
                state.known[fetch.index] = entry
                return true
            }
            if learnt {
                state.withLock { $0.earlyLayouts += 1 }
                kick()
            }
            return
        }
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
