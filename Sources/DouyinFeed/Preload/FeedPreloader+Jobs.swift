import DouyinCache
import DouyinLogging
import DouyinSupport
import DouyinVideoCache
import Foundation

extension FeedPreloader {
    /// One job, start to end; reports its outcome to the scheduler.
    func run(_ job: PreloadPlanner.Job, id: Int, reader box: LockedBox<VideoReader?>) async {
        log(.debug, "job started", job)
        var event = Event(job: job, bytes: 0, fetched: false, failure: nil)
        let outcome: PreloadScheduler.Outcome
        switch job.kind {
        case .videoPrefix, .videoTail:
            let reader = videoCache.reader(for: job.url)
            box.withLock { $0 = reader }
            defer { reader.close() }
            let range = job.range ?? 0..<1
            let before = reader.cachedRanges
            var layout: MP4Layout?
            var failure: (any Error)?
            do {
                if Task.isCancelled { throw CancellationError() }
                try await reader.prefetch(range)
                if job.kind == .videoPrefix {
                    layout = await Self.layout(of: reader, prefix: range)
                }
            } catch {
                failure = error
            }
            // The bytes count as held only once their index is on disk.
            var persistError: VideoCacheError?
            if failure == nil {
                do { try reader.persist() } catch { persistError = error }
            }
            let after = reader.cachedRanges
            let added = after.ranges.flatMap { held in before.missing(in: held.clamped(to: range)) }.filter { !$0.isEmpty }
            if let failure, Task.isCancelled || Self.isCancellation(failure) {
                outcome = .cancelled(added: added)
            } else {
                switch VideoJobVerdict.decide(range: range, length: reader.knownContentInfo?.length, before: before, after: after,
                                              fetchError: failure, uncached: reader.uncachedError, persistError: persistError) {
                case .held(let bytes, let fetched):
                    event.bytes = bytes
                    event.fetched = fetched
                    outcome = .completed(added: added, layout: layout)
                case .uncached(let reason):
                    event.fetched = true
                    event.uncachedReason = reason
                    outcome = .completed(added: added, layout: layout)
                case .failed(let reason):
                    event.failure = reason
                    outcome = .failed(added: added)
                }
            }
        case .cover, .avatar:
            guard let imageCache else { return finish(job, id: id, outcome: .failed(added: []), event: nil) }
            do {
                // prefetch, not fetch: it throws when the disk tier could not store the image,
                // so a line never says "cached" or "network" for bytes that were dropped.
                let (byteCount, source) = try await imageCache.prefetch(job.url, priority: job.kind == .cover ? .high : .normal)
                event.bytes = Int64(byteCount)
                event.fetched = source == .network
                outcome = .completed(added: [], layout: nil)
            } catch {
                if Task.isCancelled || Self.isCancellation(error) {
                    outcome = .cancelled(added: [])
                } else {
                    event.failure = "\(error)"
                    outcome = .failed(added: [])
                }
            }
        }
        let cancelled: Bool = if case .cancelled = outcome { true } else { false }
        if cancelled {
            log(.debug, "job cancelled", job)
        } else if let failure = event.failure {
            log(.error, "job failed", job, ["error": failure])
        } else {
            log(.info, "job ended", job, ["bytes": String(event.bytes), "fetched": String(event.fetched)])
        }
        finish(job, id: id, outcome: outcome, event: cancelled ? nil : event)
    }

    /// Sends an event to ``Configuration/log``, if one is set (its values built only then).
    private func log(_ level: LogEvent.Level, _ message: String, _ job: PreloadPlanner.Job, _ values: @autoclosure () -> [String: String] = [:]) {
        guard let handler = configuration.log else { return }
        var metadata = values()
        metadata["job"] = "\(job.kind)"
        metadata["index"] = String(job.index)
        metadata["url"] = job.url.absoluteString
        if let range = job.range { metadata["range"] = "\(range.lowerBound)-\(range.upperBound - 1)" }
        handler(LogEvent(level: level, subsystem: "DouyinFeed.FeedPreloader", message: message, metadata: metadata))
    }

    private func finish(_ job: PreloadPlanner.Job, id: Int, outcome: PreloadScheduler.Outcome, event: Event?) {
        perform { state in
            guard state.handles[job]?.id == id else { return [] }
            state.handles[job] = nil
            if let event { state.events.append(event) }
            return state.scheduler.jobEnded(job, outcome)
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? VideoCacheError, error == .cancelled { return true }
        if let error = error as? CacheError, case .cancelled = error { return true }
        return false
    }

    /// Reads the box headers of a prefix just fetched (held, so no origin traffic: a header
    /// outside the held prefix ends the scan).
    private static func layout(of reader: VideoReader, prefix: Range<Int64>) async -> MP4Layout {
        let length = try? await reader.contentInfo().length
        let held = reader.cachedRanges
        return await MP4Layout.scan(length: length) { offset in
            let end = min(offset + 16, prefix.upperBound, length ?? .max)
            guard offset < end, held.contains(offset..<end) else { return nil }
            return try? await reader.read(offset..<end)
        }
    }
}
