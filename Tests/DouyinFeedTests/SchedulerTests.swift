import DouyinFeed
import DouyinTestSupport
import Foundation
import Testing

@Suite("Preload scheduler")
struct SchedulerTests {
    typealias Job = PreloadPlanner.Job
    typealias Action = PreloadScheduler.Action

    static func started(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .start(let job) = $0 { "\(job.kind) \(job.index)" } else { nil } }
    }

    static func cancelled(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .cancel(let job) = $0 { "\(job.kind) \(job.index)" } else { nil } }
    }

    static func buffer(_ held: Int64, at position: Int64 = 0, complete: Bool = false) -> PreloadScheduler.PlayingBuffer {
        .init(readPosition: position, heldAhead: held, isComplete: complete, length: 2_400_000)
    }

    /// A scheduler over 10 items showing item 2, its on-screen images done.
    static func showing2() -> PreloadScheduler {
        var scheduler = PreloadScheduler()
        for action in scheduler.setItems(feedItems(10), current: 2) {
            if case .start(let job) = action { _ = scheduler.jobEnded(job, .completed(added: [], layout: nil)) }
        }
        return scheduler
    }

    func job(_ scheduler: PreloadScheduler, _ kind: PreloadPlanner.Kind, _ index: Int) -> Job {
        scheduler.plan.first { $0.kind == kind && $0.index == index }!
    }

    @Test func noPreloadUntilThePlayingVideoHoldsItsWatermark() {
        var scheduler = PreloadScheduler()
        let first = scheduler.setItems(feedItems(10), current: 2)
        #expect(Self.started(first) == ["cover 2", "avatar 2"], "only what is on screen")
        #expect(scheduler.admission == .closed)
        // 3 s at 1.6 Mbit/s is 600,000 bytes.
        #expect(scheduler.playingBufferChanged(Self.buffer(599_999)).isEmpty)
        #expect(scheduler.playingBufferChanged(Self.buffer(10_000_000, at: 1_000_000).with(held: 500_000)).isEmpty,
                "held behind the read position does not count")
        #expect(Self.started(scheduler.playingBufferChanged(Self.buffer(600_000))) == ["videoPrefix 3"])
    }

    @Test func oneAtATimeWhileThePlayingVideoDownloads() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        #expect(scheduler.running.count == 1)
        #expect(scheduler.playingBufferChanged(Self.buffer(900_000)).isEmpty)
        let next = scheduler.jobEnded(job(scheduler, .videoPrefix, 3), .completed(added: [0..<819_200], layout: .moovFirst))
        #expect(Self.started(next) == ["cover 3"])
    }

    @Test func twoAtATimeOnceThePlayingVideoIsComplete() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let more = scheduler.playingBufferChanged(Self.buffer(2_400_000, complete: true))
        #expect(Self.started(more) == ["cover 3"])
        #expect(scheduler.running.count == 2)
        #expect(scheduler.admission == .complete)
    }

    @Test func unknownBitrateAndLengthWaitsForTheWholeFile() {
        var scheduler = PreloadScheduler()
        let items = (0..<4).map { FeedItem(videoURL: URL(string: "http://o.test/v\($0).mp4")) }
        _ = scheduler.setItems(items, current: 0)
        let unknownLength = PreloadScheduler.PlayingBuffer(readPosition: 0, heldAhead: 50_000_000, isComplete: false, length: nil)
        #expect(scheduler.playingBufferChanged(unknownLength).isEmpty)
        let whole = PreloadScheduler.PlayingBuffer(readPosition: 0, heldAhead: 100, isComplete: true, length: 100)
        #expect(Self.started(scheduler.playingBufferChanged(whole)) == ["videoPrefix 1", "videoPrefix 2"])
    }

    @Test func swipeReplansAtOnceAndCancelsWorkOutsideTheWindow() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(2_400_000, complete: true))
        #expect(Set(scheduler.running.map { "\($0.kind) \($0.index)" }) == ["videoPrefix 3", "cover 3"])
        // Swipe back to 0: window 0,1 (3 is outside) → both cancelled; 0's images start at once.
        let actions = scheduler.show(0)
        #expect(Set(Self.cancelled(actions)) == ["videoPrefix 3", "cover 3"])
        #expect(Self.started(actions) == ["cover 0", "avatar 0"])
        #expect(scheduler.admission == .closed, "the new playing video has no watermark yet")
    }

    @Test func swipeForwardPausesPreloadsStillInTheWindowUntilTheNewWatermark() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let prefix4 = job(scheduler, .videoPrefix, 4)
        _ = scheduler.jobEnded(job(scheduler, .videoPrefix, 3), .completed(added: [0..<819_200], layout: .moovFirst))
        _ = scheduler.jobEnded(job(scheduler, .cover, 3), .completed(added: [], layout: nil))
        _ = scheduler.jobEnded(job(scheduler, .avatar, 3), .completed(added: [], layout: nil))
        _ = scheduler.jobEnded(job(scheduler, .videoPrefix, 1), .completed(added: [0..<819_200], layout: .moovFirst))
        _ = scheduler.jobEnded(job(scheduler, .cover, 1), .completed(added: [], layout: nil))
        _ = scheduler.jobEnded(job(scheduler, .avatar, 1), .completed(added: [], layout: nil))
        #expect(scheduler.running == [prefix4])
        let actions = scheduler.show(3)
        #expect(Self.cancelled(actions) == ["videoPrefix 4"], "in the new window but yields to the new playing video")
        #expect(scheduler.jobEnded(prefix4, .cancelled(added: [0..<100_000])).isEmpty)
        // Item 3 was preloaded: its watermark is held at once, and 4 resumes first.
        #expect(Self.started(scheduler.playingBufferChanged(Self.buffer(819_200))) == ["videoPrefix 4"])
    }

    @Test func finishedJobsAreNotRepeatedInTheSameWindow() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(2_400_000, complete: true))
        var seen: [Job] = []
        var pending = Array(scheduler.running)
        while let job = pending.popLast() {
            seen.append(job)
            for case .start(let next) in scheduler.jobEnded(job, .completed(added: job.range.map { [$0] } ?? [], layout: .moovFirst)) {
                pending.append(next)
            }
        }
        #expect(seen.count == Set(seen).count)
        #expect(Set(seen).count == scheduler.plan.count - 2, "every gated job once (item 2's images ran before)")
        #expect(scheduler.show(2).isEmpty)
    }

    @Test func moovAfterMdatAddsTheTailJobNext() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let prefix = job(scheduler, .videoPrefix, 3)
        let next = scheduler.jobEnded(prefix, .completed(added: [0..<819_200], layout: .moovAtEnd(tail: 2_300_000..<2_400_000)))
        #expect(Self.started(next) == ["videoTail 3"])
        #expect(scheduler.running.first?.range == 2_300_000..<2_400_000)
        // Re-planned windows keep the tail.
        _ = scheduler.show(1)
        #expect(scheduler.plan.contains { $0.kind == .videoTail && $0.index == 3 })
    }

    @Test func failedJobsAreNotRetriedInTheSameWindow() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let next = scheduler.jobEnded(job(scheduler, .videoPrefix, 3), .failed(added: []))
        #expect(Self.started(next) == ["cover 3"])
    }

    @Test func endOfAJobNotRunningIsIgnored() {
        var scheduler = Self.showing2()
        let stray = Job(index: 7, kind: .videoPrefix, url: URL(string: "http://o.test/other.mp4")!, range: 0..<1)
        #expect(scheduler.jobEnded(stray, .completed(added: [0..<1], layout: nil)).isEmpty)
        #expect(scheduler.statistics.preloadedBytes == 0)
    }

    @Test func statisticsCountPreloadedPlayedAndWastedBytes() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(2_400_000, complete: true))
        _ = scheduler.jobEnded(job(scheduler, .videoPrefix, 3), .completed(added: [0..<819_200], layout: .moovFirst))
        _ = scheduler.jobEnded(job(scheduler, .cover, 3), .completed(added: [], layout: nil))
        #expect(scheduler.statistics.preloadedBytes == 819_200)
        // Swipe to 3, play 300,000 bytes of it, then jump to 9: 3's other 519,200 are wasted.
        _ = scheduler.show(3)
        _ = scheduler.playingBufferChanged(Self.buffer(519_200, at: 300_000))
        #expect(scheduler.currentStatistics.playedBytes == 300_000)
        _ = scheduler.show(9)
        #expect(scheduler.statistics.playedBytes == 300_000)
        #expect(scheduler.statistics.wastedBytes == 519_200)
        // Bytes a second job adds to held ones are not counted twice.
        #expect(scheduler.statistics.preloadedBytes == 819_200)
    }

    @Test func cancelledJobsKeepTheirBytesInTheCount() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let prefix3 = job(scheduler, .videoPrefix, 3)
        _ = scheduler.show(9)
        _ = scheduler.jobEnded(prefix3, .cancelled(added: [0..<250_000]))
        #expect(scheduler.statistics.preloadedBytes == 250_000)
        #expect(scheduler.statistics.wastedBytes == 250_000)
        #expect(scheduler.statistics.cancellations == 1)
    }

    /// A new feed without the current index (an empty one, a shorter one) leaves no current
    /// item. It once kept the old index: the next buffer change read past the new items, and
    /// FeedPreloader crashed (index out of range) on `setItems([], current: 0)`.
    @Test func aCurrentOutsideTheNewItemsLeavesNoCurrentItem() {
        var scheduler = Self.showing2()
        _ = scheduler.playingBufferChanged(Self.buffer(700_000))
        let prefix3 = job(scheduler, .videoPrefix, 3)
        #expect(Self.cancelled(scheduler.setItems([], current: 0)) == ["videoPrefix 3"])
        #expect(scheduler.current == nil && scheduler.plan.isEmpty && scheduler.admission == .closed)
        #expect(scheduler.playingBufferChanged(Self.buffer(2_400_000, complete: true)).isEmpty, "nothing plays")
        // The cancelled job's bytes stay cached and count as wasted: its item left the window.
        #expect(scheduler.jobEnded(prefix3, .cancelled(added: [0..<250_000])).isEmpty)
        #expect(scheduler.statistics.wastedBytes == 250_000)
        // A shorter feed whose length the old index passes: the same.
        #expect(scheduler.setItems(feedItems(3), current: 5).isEmpty)
        #expect(scheduler.current == nil)
        // Until an item is shown.
        #expect(Self.started(scheduler.show(1)) == ["cover 1", "avatar 1"])
        #expect(scheduler.current == 1)
    }

    /// Random swipes, buffers and job ends from a seed: after every step no job runs twice,
    /// every running job is in the plan or being cancelled, and gated jobs stay within the
    /// admission's limit.
    @Test func randomEventsKeepTheInvariants() {
        var random = SeededRandom(seed: 0xFEED)
        var scheduler = PreloadScheduler()
        let items = feedItems(30)
        var running: Set<Job> = []
        var cancelling: Set<Job> = []
        func apply(_ actions: [Action]) -> Bool {
            for action in actions {
                switch action {
                case .start(let job):
                    guard running.insert(job).inserted else { return false }
                case .cancel(let job):
                    guard running.contains(job), cancelling.insert(job).inserted else { return false }
                }
            }
            return true
        }
        var ok = apply(scheduler.setItems(items, current: 0))
        for _ in 0..<5_000 where ok {
            switch Int.random(in: 0..<11, using: &random) {
            case 0:
                ok = apply(scheduler.show(Int.random(in: 0..<30, using: &random)))
            case 10:
                // A new feed, often shorter than the current index (an empty one too).
                let count = Int.random(in: 0...30, using: &random)
                ok = apply(scheduler.setItems(Array(items.prefix(count)), current: Int.random(in: 0..<30, using: &random)))
            case 1...3:
                let held = Int64.random(in: 0...1_000_000, using: &random)
                ok = apply(scheduler.playingBufferChanged(Self.buffer(held, complete: Bool.random(using: &random))))
            default:
                guard let job = running.randomElement(using: &random) else { continue }
                running.remove(job)
                let outcome: PreloadScheduler.Outcome = cancelling.remove(job) != nil
                    ? .cancelled(added: [0..<Int64.random(in: 1...819_200, using: &random)])
                    : .completed(added: job.range.map { [$0] } ?? [], layout: Bool.random(using: &random) ? .moovFirst : .moovAtEnd(tail: 2_000_000..<2_400_000))
                ok = apply(scheduler.jobEnded(job, outcome))
            }
            let current = scheduler.current ?? 0
            let active = running.subtracting(cancelling)
            let gated = active.filter { $0.isGated(current: current) }.count
            let limit = [PreloadScheduler.Admission.closed: 0, .whileDownloading: 1, .complete: 2][scheduler.admission]!
            ok = ok && gated <= limit && active.allSatisfy(scheduler.plan.contains) && running == scheduler.running
                && scheduler.current.map(scheduler.items.indices.contains) ?? true
        }
        #expect(ok, "\(random)")
        let stats = scheduler.statistics
        #expect(stats.playedBytes + stats.wastedBytes <= stats.preloadedBytes, "\(random)")
    }
}

extension PreloadScheduler.PlayingBuffer {
    func with(held: Int64) -> Self {
        var copy = self
        copy.heldAhead = held
        return copy
    }
}
