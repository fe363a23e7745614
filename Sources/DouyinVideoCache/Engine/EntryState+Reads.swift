import Foundation

/// Reads: planning each step, sleeping and waking.
extension EntryState {

    /// A new id for a read, a waiter or a download.
    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }

    /// Starts a read; its token names it from then on.
    mutating func beginRead() -> Int {
        let token = makeID()
        reads[token] = []
        return token
    }

    /// Decides the next step for the read `token` at `position` of `requested`, `handed`
    /// being the epoch of the bytes it handed out so far (`nil`: none yet). A step that starts
    /// a download lists it here first, so other readers see and share it at once.
    mutating func plan(_ token: Int, at position: Int64, in requested: Range<Int64>, maxChunk: Int, handed: Int?) -> Step {
        guard let relied = reads[token] else { return .fail(.cancelled) }
        // Checked first, before `done`: a new version may also be shorter than the old.
        if let handed, handed != epoch { return .changed }
        var upper = requested.upperBound
        if let length = info?.length { upper = min(upper, length) }
        guard position < upper else { return .done }
        if let held = ranges.heldRunEnd(from: position) {
            return .read(position..<min(held, upper), generation: generation, epoch: epoch)
        }
        if uncached != nil {
            return .direct(ranges.missing(in: position..<upper)[0])
        }
        if let failed = relied.compactMap({ failures[$0] }).first {
            return .fail(failed)
        }
        let until = Self.wakeEnd(position, upper, maxChunk)
        if let (id, download) = downloads.first(where: { $0.value.position <= position && position < $0.value.end }) {
            if position - download.position <= tuning.readOnThreshold {
                rely(token, on: id)
                return .wait(version: version, position: position, until: until, start: nil)
            }
            // Too far ahead to wait for: that download stops here and a new one starts.
            downloads[id]?.end = position
        }
        let id = listDownload(at: position, upTo: upper)
        rely(token, on: id)
        return .wait(version: version, position: position, until: until, start: id)
    }

    /// How far past `position` a waiting read wants bytes before it is woken: any byte for a
    /// stream (a player starts on what has arrived), the next 1 MB for a collecting read, so it
    /// copies held bytes out while the download goes on (a cold 32 MB read took 1.35–1.85× a
    /// plain download when woken once at the end, 0.87–1.38× woken every 1 MB).
    /// Written as a distance so a read near `Int64.max` cannot overflow.
    static func wakeEnd(_ position: Int64, _ upper: Int64, _ maxChunk: Int) -> Int64 {
        guard maxChunk == .max else { return position + 1 }  // position < upper: no overflow
        return upper - position <= 1 << 20 ? upper : position + 1 << 20
    }

    private mutating func rely(_ token: Int, on id: Int) {
        if reads[token]?.insert(id).inserted == true { demand[id, default: 0] += 1 }
    }

    /// Ends a read and lets go of the downloads it relied on; returns the tasks to cancel: a
    /// cancelled read's downloads that nobody else relies on. Ending a read twice does nothing.
    mutating func endRead(_ token: Int, cancelled: Bool) -> [Task<Void, Never>] {
        guard let relied = reads.removeValue(forKey: token) else { return [] }
        var stopped: [Task<Void, Never>] = []
        for id in relied {
            let remaining = (demand[id] ?? 1) - 1
            guard remaining <= 0 else {
                demand[id] = remaining
                continue
            }
            demand[id] = nil
            failures[id] = nil
            if cancelled, let download = downloads.removeValue(forKey: id), let task = download.task {
                stopped.append(task)
            }
        }
        if cancelled { signal() }
        return stopped
    }

    /// Whether all of `wanted` is held.
    func isHeld(_ wanted: Range<Int64>) -> Bool {
        (ranges.heldRunEnd(from: wanted.lowerBound) ?? wanted.lowerBound) >= wanted.upperBound
    }

    /// Puts a reader to sleep until `wanted` is held or something changes after `version`.
    /// Returns the continuation instead when there is no reason to sleep (that already
    /// happened, or the read is `cancelled`): the caller resumes it after unlocking.
    mutating func park(_ continuation: CheckedContinuation<Void, Never>, as token: Int, after version: Int,
                       wanting wanted: Range<Int64>, cancelled: Bool) -> CheckedContinuation<Void, Never>? {
        if self.version != version || isHeld(wanted) || cancelled { return continuation }
        waiters[token] = Waiter(continuation: continuation, wanted: wanted, version: version)
        return nil
    }

    /// Takes a sleeping reader out (its task was cancelled); the caller resumes it.
    mutating func unpark(_ token: Int) -> CheckedContinuation<Void, Never>? {
        waiters.removeValue(forKey: token)?.continuation
    }

    /// Takes out the sleeping readers that have a reason to wake now: their bytes are held, or
    /// something every reader must look at changed since they slept. The entry asks after each
    /// step and resumes them once the lock is released (resuming a task while holding the lock
    /// deadlocks against that task's cancellation handler, which takes the lock). One rule,
    /// asked in one place, rather than each step remembering whom it woke.
    mutating func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
        guard !waiters.isEmpty else { return [] }
        var ready: [CheckedContinuation<Void, Never>] = []
        for (token, waiter) in waiters where waiter.version != version || isHeld(waiter.wanted) {
            waiters[token] = nil
            ready.append(waiter.continuation)
        }
        return ready
    }

    /// Records a change every reader must look at (a download ended, bytes were dropped,
    /// caching stopped): every sleeping reader is ready to wake.
    mutating func signal() {
        version += 1
    }

    /// The file came up short reading `[.., cut)` of generation `generation` (truncated behind
    /// the entry's back): its bytes from `cut` on are no longer held, unless the index has
    /// moved on to a new generation whose bytes these are not.
    mutating func fileEndedEarly(at cut: Int64, generation: Int) {
        guard self.generation == generation else { return }
        ranges.removeAll(from: cut)
        dirty.formUnion(checksums.keys.filter { $0 >= cut / ResourceMetadata.blockSize })
    }
}
