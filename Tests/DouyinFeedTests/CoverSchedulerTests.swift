import DouyinFeed
import DouyinVideoCache
import Foundation
import Testing

/// The cover pipeline's slot and order decisions, without a server, a file or a thread.
@Suite("CoverScheduler")
struct CoverSchedulerTests {
    let a = URL(string: "https://cdn.test/a.webp")!, b = URL(string: "https://cdn.test/b.webp")!
    let c = URL(string: "https://cdn.test/c.webp")!, d = URL(string: "https://cdn.test/d.webp")!
    let resume = CoverResume(held: Data(count: 10), info: VideoContentInfo(length: 100, etag: "\"v1\""))

    @Test func aRequestJoinsItsURLsFlightAndOnlyANewOneTakesASlot() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 2)
        let first = scheduler.request(a, priority: .prefetch)
        #expect(first.isNew && first.actions == [.download(a, flight: first.flight)])
        let again = scheduler.request(a, priority: .visible)
        #expect(!again.isNew && again.flight == first.flight && again.actions.isEmpty)
        #expect(scheduler.flights[a]?.priority == .visible, "a visible request raises the flight")
        #expect(scheduler.statistics.downloads == 1 && scheduler.running == 1)
    }

    @Test func freeSlotsGoToVisibleFirstThenOldestFirst() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 1)
        let running = scheduler.request(a, priority: .visible).flight
        let prefetchB = scheduler.request(b, priority: .prefetch)
        let prefetchC = scheduler.request(c, priority: .prefetch)
        let visibleD = scheduler.request(d, priority: .visible)
        #expect(prefetchB.actions.isEmpty && prefetchC.actions.isEmpty && visibleD.actions.isEmpty)
        // D is visible: it goes before the older prefetches; then B before C (asked first).
        #expect(scheduler.finished(a, flight: running) == [.download(d, flight: visibleD.flight)])
        #expect(scheduler.finished(d, flight: visibleD.flight) == [.download(b, flight: prefetchB.flight)])
        // A prefetch scrolled into view overtakes nothing running, but leads the queue.
        _ = scheduler.request(a, priority: .prefetch)
        #expect(scheduler.setPriority(.visible, for: a).isEmpty)
        #expect(scheduler.finished(b, flight: prefetchB.flight).map(\.url) == [a])
    }

    @Test func aShownDownloadPausesOnlyWhileAnotherCoverWaits() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 1)
        let first = scheduler.request(a, priority: .visible).flight
        scheduler.shown(a, flight: first, progressive: true)
        // Nobody waits: it keeps its slot.
        #expect(scheduler.pauseIfOthersWait(a, flight: first, resume: resume) == (false, []))
        let second = scheduler.request(b, priority: .prefetch).flight
        let pause = scheduler.pauseIfOthersWait(a, flight: first, resume: resume)
        #expect(pause.paused && pause.actions == [.download(b, flight: second)])
        #expect(scheduler.flights[a]?.phase == .paused(resume))
        // The paused one finishes only once no cover waits for a first frame.
        #expect(scheduler.finished(b, flight: second) == [.finishPaused(a, flight: first, resume)])
        #expect(scheduler.statistics.pausedDownloads == 1 && scheduler.statistics.progressiveFirstFrames == 1)
        #expect(scheduler.finished(a, flight: first).isEmpty && scheduler.isIdle)
    }

    @Test func anUnshownDownloadNeverPauses() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 1)
        let first = scheduler.request(a, priority: .visible).flight
        _ = scheduler.request(b, priority: .visible)
        #expect(scheduler.pauseIfOthersWait(a, flight: first, resume: resume) == (false, []))
    }

    @Test func anAbandonedRunningFlightIsCancelledAndItsSlotGoesOn() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 1)
        let first = scheduler.request(a, priority: .visible).flight
        let waiting = scheduler.request(b, priority: .visible).flight
        #expect(scheduler.abandoned(a, flight: first) == [.cancel(a, flight: first), .download(b, flight: waiting)])
        #expect(scheduler.statistics.cancelledDownloads == 1)
        // The cancelled download's own end, reported late, changes nothing.
        #expect(scheduler.finished(a, flight: first).isEmpty)
        // A waiting flight abandoned has nothing to cancel.
        let third = scheduler.request(c, priority: .prefetch).flight
        #expect(scheduler.abandoned(c, flight: third).isEmpty)
        #expect(scheduler.statistics.cancelledDownloads == 1 && scheduler.running == 1)
    }

    @Test func aLateEventOfAnOlderFlightOfTheSameURLIsIgnored() {
        var scheduler = CoverScheduler(maxConcurrentDownloads: 2)
        let old = scheduler.request(a, priority: .visible).flight
        _ = scheduler.abandoned(a, flight: old)
        let new = scheduler.request(a, priority: .visible).flight
        #expect(new != old)
        scheduler.shown(a, flight: old, progressive: true)
        #expect(scheduler.flights[a]?.phase == .running(shown: false))
        #expect(scheduler.finished(a, flight: old).isEmpty && scheduler.flights[a]?.id == new)
    }
}

extension CoverScheduler.Action {
    var url: URL {
        switch self {
        case .download(let url, _), .finishPaused(let url, _, _), .cancel(let url, _): url
        }
    }
}
