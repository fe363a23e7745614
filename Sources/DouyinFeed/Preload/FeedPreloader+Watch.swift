import DouyinVideoCache
import Foundation

extension FeedPreloader {
    // MARK: Watching the playing video

    /// (Re)starts the watch that feeds the scheduler the playing video's buffer, once now and
    /// again at every change the video cache announces for it, until admission is fully open.
    func startMonitor() {
        let playing = state.withLock { state in state.scheduler.current.flatMap { state.scheduler.items[$0].videoURL } }
        let changes = playing.map { videoCache.changes(for: $0) }
        let task = Task { [weak self] in
            guard let changes else {
                self?.checkPlayingBuffer()
                return
            }
            // Not `self` across the wait: a preloader dropped while nothing changes is freed
            // (its deinit cancels this task, which ends the stream).
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                if self.checkPlayingBuffer() { return }
            }
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            defer { state.monitor = state.closed ? nil : task }
            return state.monitor
        }
        old?.cancel()
        if state.withLock({ $0.closed }) { task.cancel() }
    }

    /// Reads the playing video's buffer from the video cache and tells the scheduler;
    /// `true` when admission is fully open (nothing more to watch).
    @discardableResult
    func checkPlayingBuffer() -> Bool {
        let (url, position) = state.withLock { state -> (URL?, Int64) in
            guard let current = state.scheduler.current else { return (nil, 0) }
            let url = state.scheduler.items[current].videoURL
            if state.playingURL != url {
                state.playingURL = url
                state.readPosition = 0
            }
            return (url, state.readPosition)
        }
        guard let url else {
            perform { $0.scheduler.noPlayingVideo() }
            return true
        }
        // Both asked of the cache without a request or a reader: nothing here touches the index.
        let held = videoCache.cachedRanges(for: url)
        let heldEnd = held.heldRunEnd(from: position) ?? position
        let length = videoCache.contentInfo(for: url)?.length
        let buffer = PreloadScheduler.PlayingBuffer(
            readPosition: position, heldAhead: heldEnd - position,
            isComplete: length.map { held.contains(0..<$0) } ?? false, length: length
        )
        var open = false
        perform { state in
            // A swipe since the read: this buffer belongs to another item.
            guard state.playingURL == url else { return [] }
            let actions = state.scheduler.playingBufferChanged(buffer)
            open = state.scheduler.admission == .complete
            return actions
        }
        return open
    }
}
