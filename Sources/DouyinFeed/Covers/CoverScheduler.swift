import Foundation

/// The cover pipeline's decisions as a pure value: which cover downloads hold the slots, in
/// which order waiting ones start, when a shown cover pauses to free its slot and when a paused
/// one finishes. ``CoverPipeline`` holds one behind its lock and performs the returned actions
/// after unlocking (as ``FeedPreloader`` does with its scheduler).
///
/// Rules:
/// - One flight per URL; a request for a URL in flight joins it (raising its priority).
/// - At most `maxConcurrentDownloads` flights hold a slot. A free slot goes to the waiting
///   flight of highest priority, oldest first; only when none waits, to the oldest paused one.
/// - A flight that has shown its first frame gives its slot up (pauses, keeping its bytes) as
///   soon as another flight waits for a slot.
/// - A flight every waiter left before its frame is dropped; if it held a slot, its download
///   is cancelled and the slot freed.
package struct CoverScheduler: Sendable {
    /// Where a flight is.
    package enum Phase: Sendable, Equatable {
        /// Asked for, waiting for a slot.
        case waiting
        /// Downloading in a slot; `shown` once its first frame went to its waiters.
        case running(shown: Bool)
        /// Shown, stopped after its first frame with its bytes held, waiting for a slot to
        /// fetch the rest.
        case paused(CoverResume)
        /// Fetching the rest after a pause, in a slot.
        case finishing
    }

    /// One URL's download.
    package struct Flight: Sendable, Equatable {
        /// Tells this flight from a later one of the same URL.
        package let id: Int
        /// The highest priority any of its requests asked for.
        package var priority: CoverPipeline.Priority
        /// Where it is.
        package var phase: Phase
        /// Whether it holds a slot.
        var holdsSlot: Bool {
            switch phase {
            case .running, .finishing: true
            case .waiting, .paused: false
            }
        }
    }

    /// Something for the performer to do, after unlocking.
    package enum Action: Sendable, Equatable {
        /// Start downloading `url` for flight `flight`.
        case download(URL, flight: Int)
        /// Fetch the rest of a paused flight's file.
        case finishPaused(URL, flight: Int, CoverResume)
        /// Cancel flight `flight`'s download (every waiter left before its frame).
        case cancel(URL, flight: Int)
    }

    /// Downloads at once; 1 or more (the pipeline checks its configuration).
    package let maxConcurrentDownloads: Int
    /// The flights, by URL.
    package private(set) var flights: [URL: Flight] = [:]
    /// Counts, as ``CoverPipeline/statistics`` reports them (the cached first frames aside).
    package private(set) var statistics = CoverPipeline.Statistics()
    private var lastID = 0

    /// An empty scheduler.
    package init(maxConcurrentDownloads: Int) {
        precondition(maxConcurrentDownloads >= 1, "checked by CoverPipeline.init")
        self.maxConcurrentDownloads = maxConcurrentDownloads
    }

    /// Flights holding a slot.
    package var running: Int { flights.values.filter(\.holdsSlot).count }

    /// Whether no flight is left (every file stored or given up).
    package var isIdle: Bool { flights.isEmpty }

    /// A request for `url`: joins its flight (raising the priority) or makes a new one.
    /// - Returns: the flight's id, whether it is new, and what to start now.
    package mutating func request(_ url: URL, priority: CoverPipeline.Priority) -> (flight: Int, isNew: Bool, actions: [Action]) {
        if var flight = flights[url] {
            flight.priority = max(flight.priority, priority)
            flights[url] = flight
            return (flight.id, false, [])
        }
        lastID += 1
        flights[url] = Flight(id: lastID, priority: priority, phase: .waiting)
        return (lastID, true, schedule())
    }

    /// A cell scrolled into (or out of) view: a waiting flight's new priority.
    package mutating func setPriority(_ priority: CoverPipeline.Priority, for url: URL) -> [Action] {
        guard flights[url] != nil else { return [] }
        flights[url]?.priority = priority
        return schedule()
    }

    /// Every waiter of flight `id` left before its first frame: drop it; cancel its download
    /// when it had one (and give its slot to the next).
    package mutating func abandoned(_ url: URL, flight id: Int) -> [Action] {
        guard let flight = flights[url], flight.id == id else { return [] }
        flights[url] = nil
        guard case .running = flight.phase else { return [] }
        statistics.cancelledDownloads += 1
        return [.cancel(url, flight: id)] + schedule()
    }

    /// Flight `id` showed its first frame to its waiters (`progressive`: before its file was
    /// complete).
    package mutating func shown(_ url: URL, flight id: Int, progressive: Bool) {
        guard flights[url]?.id == id, case .running = flights[url]?.phase else { return }
        flights[url]?.phase = .running(shown: true)
        if progressive { statistics.progressiveFirstFrames += 1 }
    }

    /// A shown flight's download asks whether to go on: it pauses (returns true, keeping
    /// `resume` to fetch the rest later) when another flight waits for a slot.
    package mutating func pauseIfOthersWait(_ url: URL, flight id: Int, resume: CoverResume) -> (paused: Bool, actions: [Action]) {
        guard let flight = flights[url], flight.id == id, flight.phase == .running(shown: true),
              flights.values.contains(where: { $0.phase == .waiting }) else { return (false, []) }
        flights[url]?.phase = .paused(resume)
        statistics.pausedDownloads += 1
        return (true, schedule())
    }

    /// Flight `id`'s download ended (stored, failed, or given up): drop it and free its slot.
    package mutating func finished(_ url: URL, flight id: Int) -> [Action] {
        guard flights[url]?.id == id else { return [] }
        flights[url] = nil
        return schedule()
    }

    /// Fills free slots: waiting flights first (highest priority, then oldest), then paused
    /// ones (oldest first), so every cover still without a frame starts before any finishes.
    private mutating func schedule() -> [Action] {
        var actions: [Action] = []
        var free = maxConcurrentDownloads - running
        while free > 0 {
            let waiting = flights.filter { $0.value.phase == .waiting }
            if let (url, flight) = waiting.max(by: { ($0.value.priority, -$0.value.id) < ($1.value.priority, -$1.value.id) }) {
                flights[url]?.phase = .running(shown: false)
                statistics.downloads += 1
                actions.append(.download(url, flight: flight.id))
            } else {
                let paused = flights.compactMap { url, flight -> (URL, Int, CoverResume)? in
                    if case .paused(let resume) = flight.phase { (url, flight.id, resume) } else { nil }
                }
                guard let (url, id, resume) = paused.min(by: { $0.1 < $1.1 }) else { break }
                flights[url]?.phase = .finishing
                actions.append(.finishPaused(url, flight: id, resume))
            }
            free -= 1
        }
        return actions
    }
}
