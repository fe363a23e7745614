import DouyinCache
import DouyinSupport
import DouyinVideoCache
import DouyinWebP
import Foundation

/// Turns cover URLs (animated WebP) into first frames for a grid: from the two-tier cache when
/// held (decoded on the WebP decode queues), else from one progressive download per URL that
/// shows the first frame as soon as its bytes are in, long before the file is complete, and
/// stores the whole file in the cache when it is.
///
/// ```swift
/// let covers = CoverPipeline(imageCache: images)
/// let frame = try await covers.firstFrame(for: url)            // visible cell
/// let later = Task { try await covers.firstFrame(for: next, priority: .prefetch) }
/// later.cancel()                                                // the cell went away
/// ```
///
/// Rules: however many cells ask for one URL, one download and one decode serve them; a
/// waiter that cancels leaves without disturbing the others, and the download stops when the
/// last one leaves. At most ``Configuration/maxConcurrentDownloads`` download at once, visible
/// requests before prefetches, each in the order asked. A download that has shown its first
/// frame while other covers wait for a slot pauses (its bytes kept) and gives its slot up; it
/// finishes later, after every cover waiting for a first frame has started, with a range request
/// for the rest (`If-Range` on the first answer's validator, so a changed file comes whole).
///
/// The cache's own downloader hands out whole files only, so this pipeline reads the body
/// itself as it arrives (over a DouyinVideoCache origin, `URLSessionOrigin` by default) and
/// stores the file in the cache at the end.
public final class CoverPipeline: Sendable {
    /// The pipeline's settings.
    public struct Configuration: Sendable {
        /// Downloads at once: 4 by default.
        public var maxConcurrentDownloads = 4
        /// The largest canvas decoded, in pixels: WebPAnimation's default (16.7 M) by default.
        public var maxCanvasPixels = WebPAnimation.defaultMaxCanvasPixels
        /// The defaults.
        public init() {}
    }

    /// How urgent a request is; ``visible`` ranks above ``prefetch``.
    public enum Priority: Sendable, Hashable, Comparable {
        /// Off screen, fetched ahead.
        case prefetch
        /// On screen now.
        case visible
    }

    /// Why a cover could not be shown.
    public enum CoverError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The origin answered a status other than 200/206.
        case httpStatus(Int, url: String)
        /// The transfer failed.
        case transport(url: String, reason: String)
        /// The bytes are not a WebP this pipeline can decode.
        case undecodable(url: String, reason: String)
        /// The origin's answer contradicts itself or the request (a body longer or shorter than
        /// its Content-Range or Content-Length, an unreadable header); the video cache's error
        /// says which.
        case invalidAnswer(url: String, VideoCacheError)

        /// One line saying what went wrong.
        public var description: String {
            switch self {
            case .httpStatus(let status, let url): "HTTP \(status) for cover \(url)"
            case .transport(let url, let reason): "cover download \(url) failed: \(reason)"
            case .undecodable(let url, let reason): "cover \(url) is not a decodable WebP: \(reason)"
            case .invalidAnswer(let url, let error): "cover \(url): \(error)"
            }
        }
    }

    /// Counts, for tests and logs.
    public struct Statistics: Sendable, Hashable {
        /// Downloads started.
        public var downloads = 0
        /// First frames shown before their file was complete.
        public var progressiveFirstFrames = 0
        /// First frames decoded from a cached file.
        public var cachedFirstFrames = 0
        /// Downloads cancelled because every waiter left.
        public var cancelledDownloads = 0
        /// Downloads paused after their first frame to free the slot for a cover still without
        /// one (each finishes later with a range request for the rest of the file).
        public var pausedDownloads = 0
    }

    private struct Flight {
        let id: Int
        var priority: Priority
        var order: Int
        var waiters: [Int: CheckedContinuation<WebPCanvasFrame, any Error>] = [:]
        var task: Task<Void, Never>?
        var started = false
        /// Set once shown: later joiners get it at once while the file finishes downloading.
        var frame: WebPCanvasFrame?
        /// Set while the download is paused after the frame, waiting for a slot to finish.
        var paused: CoverResume?
    }

    private struct State {
        var flights: [URL: Flight] = [:]
        var nextID = 0
        var cancelledEarly: Set<Int> = []
        var running = 0
        var statistics = Statistics()
        /// Callers of ``idle()`` waiting for the last flight to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Callers of ``joined(_:)`` waiting for a request of a URL to wait for its download.
        var joinWaiters: [URL: [CheckedContinuation<Void, Never>]] = [:]

        /// The idle waiters to resume when no flight is left (taken out of the state).
        mutating func takeIdleWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard flights.isEmpty else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private let imageCache: TwoTierCache
    private let decodeQueues: WebPDecodeQueues
    private let origin: any VideoOrigin
    private let state = LockedBox(State())

    /// A pipeline over `imageCache`, decoding cached files on `decodeQueues` and downloading
    /// over `origin` (HTTP on its own session by default; a `FileOrigin` serves `file://`
    /// covers, throttled if asked, as the demo does).
    public init(imageCache: TwoTierCache, decodeQueues: WebPDecodeQueues = WebPDecodeQueues(),
                origin: any VideoOrigin = URLSessionOrigin(), configuration: Configuration = Configuration()) {
        self.imageCache = imageCache
        self.decodeQueues = decodeQueues
        self.origin = origin
        self.configuration = configuration
    }

    /// Counts so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The composited first frame of the cover at `url`.
    ///
    /// - Throws: ``CoverError``, or `CancellationError` when the calling task is cancelled
    ///   (the download goes on while other callers wait for it).
    public func firstFrame(for url: URL, priority: Priority = .visible) async throws -> WebPCanvasFrame {
        if let data = imageCache.cachedData(for: url) {
            let frame = try await decodeFirstFrame(of: data, url: url)
            state.withLock { $0.statistics.cachedFirstFrames += 1 }
            return frame
        }
        let waiter = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(url: url, priority: priority, waiter: waiter, continuation: continuation)
            }
        } onCancel: {
            leave(url: url, waiter: waiter)
        }
    }

    /// Returns once no download is running, waiting or paused (every file stored or given up):
    /// for tests and benchmarks that check what a run left in the cache.
    package func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.flights.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once some request for `url` waits on its download (joined, no frame yet): for
    /// tests that must order a second cover behind the first without a sleep.
    package func joined(_ url: URL) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.flights[url]?.waiters.isEmpty == false { return true }
                state.joinWaiters[url, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Raises (or lowers) a waiting URL's priority: a cell scrolled into view.
    public func setPriority(_ priority: Priority, for url: URL) {
        state.withLock { $0.flights[url]?.priority = priority }
        startWaitingFlights()
    }

    // MARK: Flights

    private func join(url: URL, priority: Priority, waiter: Int, continuation: CheckedContinuation<WebPCanvasFrame, any Error>) {
        enum Joined { case cancelled, shown(WebPCanvasFrame), waiting([CheckedContinuation<Void, Never>]) }
        let joined = state.withLock { state -> Joined in
            if state.cancelledEarly.remove(waiter) != nil { return .cancelled }
            if let frame = state.flights[url]?.frame { return .shown(frame) }
            if state.flights[url] == nil {
                state.flights[url] = Flight(id: waiter, priority: priority, order: waiter)
            }
            state.flights[url]?.waiters[waiter] = continuation
            if let current = state.flights[url]?.priority, priority > current { state.flights[url]?.priority = priority }
            return .waiting(state.joinWaiters.removeValue(forKey: url) ?? [])
        }
        switch joined {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .shown(let frame): continuation.resume(returning: frame)
        case .waiting(let watchers):
            for watcher in watchers { watcher.resume() }
            startWaitingFlights()
        }
    }

    private func leave(url: URL, waiter: Int) {
        let (continuation, orphan, idle) = state.withLock { state -> (CheckedContinuation<WebPCanvasFrame, any Error>?, Task<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            guard let continuation = state.flights[url]?.waiters.removeValue(forKey: waiter) else {
                state.cancelledEarly.insert(waiter)
                return (nil, nil, [])
            }
            guard state.flights[url]?.waiters.isEmpty == true, let flight = state.flights.removeValue(forKey: url) else {
                return (continuation, nil, [])
            }
            // Nobody waits any more: stop the download (a flight that has shown its frame has no
            // waiters left either, but is finishing the file for the cache and is not here).
            if flight.started {
                state.running -= 1
                state.statistics.cancelledDownloads += 1
            }
            return (continuation, flight.task, state.takeIdleWaitersIfIdle())
        }
        continuation?.resume(throwing: CancellationError())
        for waiter in idle { waiter.resume() }
        orphan?.cancel()
        if orphan != nil { startWaitingFlights() }
    }

    /// Starts waiting flights while slots are free: visible first, then in the order asked;
    /// paused downloads only when no cover waits for its first frame, oldest first.
    private func startWaitingFlights() {
        state.withLock { state in
            while state.running < max(1, configuration.maxConcurrentDownloads) {
                let waiting = state.flights.filter { !$0.value.started }
                if let (url, flight) = waiting.max(by: { ($0.value.priority, -$0.value.order) < ($1.value.priority, -$1.value.order) }) {
                    state.running += 1
                    state.statistics.downloads += 1
                    state.flights[url]?.started = true
                    let id = flight.id
                    // A task does not run synchronously, so it is registered before it can finish.
                    state.flights[url]?.task = Task { [self] in await download(url, flight: id) }
                    continue
                }
                let paused = state.flights.compactMap { url, flight in flight.paused.map { (url, flight.id, flight.order, $0) } }
                guard let (url, id, _, held) = paused.min(by: { $0.2 < $1.2 }) else { return }
                state.running += 1
                state.flights[url]?.paused = nil
                state.flights[url]?.task = Task { [self] in await finishPaused(url, flight: id, held) }
            }
        }
    }

    /// After the frame: pauses this download (keeping `data`) when a cover waits for a slot
    /// to show its own first frame. Returns whether it did; the caller then stops reading.
    private func pauseIfOthersWait(_ url: URL, flight: Int, data: Data, info: VideoContentInfo) -> Bool {
        // Without a known length a resumed range could not be checked as complete: keep going.
        guard let length = info.length, Int64(data.count) < length else { return false }
        let paused = state.withLock { state -> Bool in
            guard state.flights[url]?.id == flight, state.flights.contains(where: { !$0.value.started }) else { return false }
            state.flights[url]?.paused = CoverResume(held: data, info: info)
            state.running -= 1
            state.statistics.pausedDownloads += 1
            return true
        }
        if paused { startWaitingFlights() }
        return paused
    }

    /// Finishes a paused download: the rest of the file as ``CoverResume`` asks for it and
    /// judges the answer (a 200 replaces the held bytes; a 206 of another version, or a body
    /// longer or shorter than its range, is never spliced: the whole file is asked for once
    /// more), then stores it in the cache if complete. The frame is already shown, so a failure
    /// only leaves the cover uncached (the next request downloads it again).
    private func finishPaused(_ url: URL, flight: Int, _ paused: CoverResume) async {
        var request = paused.request(for: url)
        while true {
            do {
                let response = try await origin.fetch(request)
                let answer = try Self.answer(response, to: request)
                var data: Data, framing: BodyFraming, length: Int64?
                switch paused.plan(for: answer, to: request) {
                case .append(let body): (data, framing, length) = (paused.held, body, paused.length)
                case .replace(let body, let total): (data, framing, length) = (Data(), body, total)
                case .refetchWhole(let reason): throw CoverError.invalidAnswer(url: url.absoluteString, .invalidResponse(reason))
                }
                try await Self.receive(response.body, into: &data, framing: &framing, url: url)
                if length.map({ $0 == Int64(data.count) }) ?? true { try? imageCache.store(data, for: url) }
                break
            } catch {
                // A ranged answer that cannot continue the held bytes: the whole file, once.
                guard request.range.lowerBound > 0, !(error is CancellationError) else { break }
                request = CoverResume.whole(url)
            }
        }
        finishDownload(url, flight: flight)
    }

    /// Reads a response head by the video cache's rules; an origin status other than
    /// 200/206 is ``CoverError/httpStatus(_:url:)``, a contradiction ``CoverError/invalidAnswer(url:_:)``.
    private static func answer(_ response: OriginResponse, to request: OriginRequest) throws(CoverError) -> OriginAnswer {
        let answer: OriginAnswer
        do {
            answer = try OriginAnswer.parse(status: response.status, headers: response.headers, for: request)
        } catch .originStatus(let status, _) {
            throw .httpStatus(status, url: request.url.absoluteString)
        } catch {
            throw .invalidAnswer(url: request.url.absoluteString, error)
        }
        // A cover is never asked for from past its end, so a 416 is only a refusal.
        if case .unsatisfiable = answer { throw .httpStatus(416, url: request.url.absoluteString) }
        return answer
    }

    /// Takes the next body piece through `framing`: a byte past the end the headers named is an
    /// error before any of the piece is kept.
    private static func take(_ piece: Data, framing: inout BodyFraming, url: URL) throws(CoverError) {
        do {
            _ = try framing.take(piece.count)
        } catch {
            throw .invalidAnswer(url: url.absoluteString, error)
        }
    }

    /// Reads the rest of `body` into `data` through `framing`; throws when it runs past the
    /// named end, or ends before it (a shortfall).
    private static func receive(_ body: AsyncThrowingStream<Data, any Error>, into data: inout Data,
                                framing: inout BodyFraming, url: URL) async throws {
        for try await piece in body {
            try take(piece, framing: &framing, url: url)
            data.append(piece)
        }
        try checkEnd(framing, url: url)
    }

    /// Throws when the body ended before the end its headers named.
    private static func checkEnd(_ framing: BodyFraming, url: URL) throws(CoverError) {
        if let end = framing.end, framing.offset != end {
            throw .invalidAnswer(url: url.absoluteString, .invalidResponse("the body ended at byte \(framing.offset) of \(end)"))
        }
    }

    /// Downloads `url`, trying a first frame after each piece until one decodes; resumes the
    /// waiters with it, keeps downloading to the end and stores the file in the cache.
    private func download(_ url: URL, flight: Int) async {
        var data = Data()
        var shown = false
        do {
            let request = CoverResume.whole(url)
            let response = try await origin.fetch(request)
            let answer = try Self.answer(response, to: request)
            // A first answer is a 200 or a 206 from byte 0 (parse checked): `info.length` is
            // the file's length when known.
            let info: VideoContentInfo
            switch answer {
            case .partial(_, let answered), .whole(let answered): info = answered
            case .unsatisfiable: throw CoverError.httpStatus(416, url: url.absoluteString)
            }
            guard var framing = answer.framing else { throw CoverError.httpStatus(416, url: url.absoluteString) }
            for try await piece in response.body {
                try Self.take(piece, framing: &framing, url: url)
                data.append(piece)
                if shown {
                    // Returning stops reading, which cancels the transfer.
                    if pauseIfOthersWait(url, flight: flight, data: data, info: info) { return }
                    continue
                }
                do {
                    if let frame = try WebPAnimation.firstFrame(ofPartialData: data, maxCanvasPixels: configuration.maxCanvasPixels) {
                        shown = true
                        resume(url, flight: flight, with: .success(frame), progressive: true)
                        if pauseIfOthersWait(url, flight: flight, data: data, info: info) { return }
                    }
                } catch {
                    throw CoverError.undecodable(url: url.absoluteString, reason: "\(error)")
                }
            }
            try Self.checkEnd(framing, url: url)
            if !shown {
                // Complete but no first frame yet (a tiny file arriving in one piece).
                let frame = try await decodeFirstFrame(of: data, url: url)
                shown = true
                resume(url, flight: flight, with: .success(frame), progressive: false)
            }
            // A 206 that sent fewer bytes than the file has is shown but not stored as whole.
            if info.length.map({ $0 == Int64(data.count) }) ?? true { try? imageCache.store(data, for: url) }
        } catch {
            let failure: any Error = if error is CancellationError || (error as? VideoCacheError) == .cancelled {
                CancellationError()
            } else if error is CoverError {
                error
            } else {
                CoverError.transport(url: url.absoluteString, reason: "\(error)")
            }
            if !shown { resume(url, flight: flight, with: .failure(failure), progressive: false) }
        }
        finishDownload(url, flight: flight)
    }

    private func resume(_ url: URL, flight: Int, with result: Result<WebPCanvasFrame, any Error>, progressive: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<WebPCanvasFrame, any Error>] in
            guard state.flights[url]?.id == flight else { return [] }
            if case .success(let frame) = result {
                state.flights[url]?.frame = frame
                if progressive { state.statistics.progressiveFirstFrames += 1 }
            }
            defer { state.flights[url]?.waiters = [:] }
            return Array(state.flights[url]?.waiters.values ?? [:].values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The flight's download ended: free its slot (unless a last leaver already did).
    private func finishDownload(_ url: URL, flight: Int) {
        let (freed, leftovers, frame, idle) = state.withLock { state -> (Bool, [CheckedContinuation<WebPCanvasFrame, any Error>], WebPCanvasFrame?, [CheckedContinuation<Void, Never>]) in
            guard let ended = state.flights[url], ended.id == flight else { return (false, [], nil, []) }
            state.flights[url] = nil
            state.running -= 1
            return (true, Array(ended.waiters.values), ended.frame, state.takeIdleWaitersIfIdle())
        }
        for waiter in idle { waiter.resume() }
        // Waiters that joined after a failure resumed the others.
        for waiter in leftovers {
            if let frame {
                waiter.resume(returning: frame)
            } else {
                waiter.resume(throwing: CoverError.transport(url: url.absoluteString, reason: "the download ended without a frame"))
            }
        }
        if freed { startWaitingFlights() }
    }

    private func decodeFirstFrame(of data: Data, url: URL) async throws -> WebPCanvasFrame {
        let animation: WebPAnimation
        do {
            animation = try WebPAnimation(data: data, maxCanvasPixels: configuration.maxCanvasPixels)
        } catch {
            throw CoverError.undecodable(url: url.absoluteString, reason: error.description)
        }
        let request = decodeQueues.decode(animation)
        defer { request.cancel() }
        for try await frame in request.frames { return frame }
        throw CoverError.undecodable(url: url.absoluteString, reason: "no frames")
    }
}
