import DouyinSupport
import Testing

@Suite("Duration conversions")
struct DurationUnitsTests {
    @Test func secondsKeepTheFractionAndTheSign() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.milliseconds(-250).inSeconds == -0.25)
        #expect(Duration.zero.inSeconds == 0)
    }

    @Test func wholeMillisecondsRoundTowardZeroAndNeverTrap() {
        #expect(Duration.microseconds(1900).wholeMilliseconds == 1)
        #expect(Duration.microseconds(-1900).wholeMilliseconds == -1)
        #expect(Duration.seconds(3).wholeMilliseconds == 3000)
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
    }

    @Test func exactMillisecondsTextKeepsEveryDigit() {
        #expect(Duration.milliseconds(1500).exactMillisecondsText == "1500")
        #expect(Duration.microseconds(1_500).exactMillisecondsText == "1.5")
        #expect(Duration.nanoseconds(1_000_000_001).exactMillisecondsText == "1000.000001")
        #expect(Duration.microseconds(-1_500).exactMillisecondsText == "-1.5")
        #expect(Duration.milliseconds(Int64.max).exactMillisecondsText == "9223372036854775807")
        #expect(Duration.zero.exactMillisecondsText == "0")
    }
}

@Suite("IdleWaiters")
struct IdleWaitersTests {
    @Test func everyWaiterWakesAtTheIdleMomentAndACancelledOneLeavesAlone() async throws {
        let state = LockedBox(IdleWaiters())
        let leaving = state.withLock { $0.subscribe() }, staying = state.withLock { $0.subscribe() }
        let leaver = Task { await leaving.waitForIdle() }
        let stayer = Task { await staying.waitForIdle(); return true }
        leaver.cancel()
        await leaver.value  // returns on its own cancellation, before the idle moment
        let release = state.withLock { $0.release() }
        #expect(release != nil)
        release?.finish(.success(()))
        #expect(await stayer.value)
        // Nobody waits for the next idle moment yet.
        #expect(state.withLock { $0.release() } == nil)
    }
}

@Suite("Lease")
struct LeaseTests {
    @Test func theResourceIsReleasedOnceWhenTheLastHolderLetsGo() {
        let released = LockedBox([Int]())
        var lease: Lease<Int>? = Lease(7) { id in released.withLock { $0.append(id) } }
        var second = lease
        lease = nil
        #expect(released.withLock { $0 }.isEmpty, "still held by the second holder")
        #expect(second?.resource == 7)
        second = nil
        #expect(released.withLock { $0 } == [7])
    }
}
