import DouyinSupport
import DouyinTestSupport
import DouyinTestTraits
import Testing

/// The hang guard counts the time the machine ran, not the wall clock: across a pause of the
/// machine a wall-clock limit fails a test that did not hang.
@Suite("Hang guard and machine watch")
struct HangGuardTests {
    private let tick = MachineWatch.tickInterval

    @Test func ticksOnTimeAreAllRunningTime() {
        var meter = LiveTimeMeter(start: .seconds(100), tickInterval: tick)
        for step in 1...40 { #expect(meter.tick(at: .seconds(100) + tick * step) == nil) }
        #expect(meter.stoodStill == .zero)
        #expect(meter.liveTime == .seconds(110))
    }

    @Test func aLongGapLessOneTickIsStoodStill() {
        var meter = LiveTimeMeter(start: .zero, tickInterval: tick)
        _ = meter.tick(at: tick)
        #expect(meter.tick(at: tick + .seconds(367)) == .seconds(367) - tick)
        #expect(meter.liveTime == tick * 2)
        #expect(meter.spans == 1)
        #expect(meter.longest == .seconds(367) - tick)
        _ = meter.tick(at: tick * 2 + .seconds(367) + .seconds(80))
        #expect(meter.spans == 2)
        #expect(meter.stoodStill == .seconds(447) - tick)
        #expect(meter.longest == .seconds(367) - tick)
    }

    /// A loaded machine serves a tick late: up to the 2 s gap that is running time.
    @Test func aLateTickUpToTheGapIsRunningTime() {
        var meter = LiveTimeMeter(start: .zero, tickInterval: tick)
        #expect(meter.tick(at: LiveTimeMeter.standStillGap) == nil)
        #expect(meter.tick(at: LiveTimeMeter.standStillGap * 2 + .nanoseconds(1)) != nil)
    }

    /// A reading before the last tick (a caller's race) is no time, never negative time.
    @Test func aReadingBeforeTheLastTickIsNoTime() {
        var meter = LiveTimeMeter(start: .seconds(10), tickInterval: tick)
        #expect(meter.tick(at: .seconds(5)) == nil)
        #expect(meter.liveTime == .seconds(10))
        #expect(meter.tick(at: .seconds(11)) == nil)
        #expect(meter.liveTime == .seconds(11))
    }

    /// A sleeper of 10 s live time is not woken by a 400 s stand-still, only by running time;
    /// the stand-still is said once, with the clocks' gaps and the steal time.
    @Test func aStandStillDoesNotWakeALiveTimeSleeper() async {
        let said = LockedBox<[String]>([])
        let watch = MachineWatch(start: .zero) { line in said.withLock { $0.append(line) } }
        let woken = LockedBox(false)
        let sleeper = Task {
            let reached = await watch.sleep(liveFor: .seconds(10))
            woken.withLock { $0 = reached }
            return reached
        }
        // The sleeper must have registered before the clock moves: wait for the watch to hold it.
        while !watch.hasSleepers { await Task.yield() }
        var now = Duration.zero
        func step(_ by: Duration) {
            now += by
            watch.tick(boot: now, monotonic: now, steal: 100 * Int64(now.components.seconds))
        }
        for _ in 0..<20 { step(tick) }  // 5 s live
        step(.seconds(400))  // stood still 399.75 s
        for _ in 0..<10 { step(tick) }  // 7.75 s live in all
        #expect(!woken.withLock { $0 })
        for _ in 0..<10 { step(tick) }  // 10.25 s
        #expect(await sleeper.value)
        let lines = said.withLock { $0 }.filter { $0.contains("stood still") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("stood still 399.8 s") == true, "\(lines)")
        #expect(lines.first?.contains("the boot clock moved 400.0 s") == true, "\(lines)")
    }

    @Test func aCancelledSleeperReturnsFalseAtOnce() async {
        let watch = MachineWatch(start: .zero) { _ in }
        let early = Task { await watch.sleep(liveFor: .seconds(1)) }
        early.cancel()
        #expect(await early.value == false)
        let waiting = Task { await watch.sleep(liveFor: .seconds(1)) }
        while !watch.hasSleepers { await Task.yield() }
        waiting.cancel()
        #expect(await waiting.value == false)
        #expect(!watch.hasSleepers)
    }

    @Test func aBodyThatEndsIsNotGuarded() async throws {
        let exceeded = LockedBox(0)
        try await HangGuard.run({ await Task.yield() }, limit: .seconds(60), watch: .shared) { _ in exceeded.withLock { $0 += 1 } }
        #expect(exceeded.withLock { $0 } == 0)
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await HangGuard.run({ throw Failure() }, limit: .seconds(60), watch: .shared) { _ in exceeded.withLock { $0 += 1 } }
        }
        #expect(exceeded.withLock { $0 } == 0)
    }

    /// A body that waits forever is cancelled at the limit and the guard says so once.
    @Test func aBodyPastItsLimitIsCancelledAndReported() async throws {
        let exceeded = LockedBox(0), cancelled = LockedBox(false)
        try await HangGuard.run({
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
        }, limit: .milliseconds(500), watch: .shared) { _ in exceeded.withLock { $0 += 1 } }
        #expect(exceeded.withLock { $0 } == 1)
        #expect(cancelled.withLock { $0 })
    }
}
