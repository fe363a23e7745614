import DouyinCache
import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// The downloader's delegate against a starved global dispatch pool.
///
/// This test takes the whole test process over: it keeps every thread of the global concurrent
/// pool spinning, and on Linux that pool also runs every Swift task, so each other test in the
/// process stood still while it ran (up to its 30 s bound under load). It therefore runs only
/// when asked (`DOUYIN_ALONE_TESTS=1`), which `make test` does after each whole-suite pass, in a
/// `swift test` of its own (`--filter PoolStarvationTests`).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["DOUYIN_ALONE_TESTS"] == "1"))
struct PoolStarvationTests {
    @Test func delegateIsNotStarvedWhileEveryPoolThreadIsBusy() async throws {
        // The session's delegate once ran on FoundationNetworking's default queue, over the
        // global concurrent pool, which adds no thread while all of its threads are busy; libcurl
        // kept reading on a thread of its own and queued every chunk behind the starved delegate.
        // Given a download whose first chunk has reached the delegate, and then every thread of
        // that pool busy (as on a loaded machine)
        let origin = try await HostileOrigin.start()
        let url = origin.url("/chunked/1000000")
        let downloader = Downloader()
        let pool = BusyPool()
        let (result, finishedWhileBusy) = await withCheckedContinuation { done in
            downloader.download(url, progress: { _, _ in pool.occupyOnce() }) { result in
                done.resume(returning: (result, pool.isBusy))
                pool.release()
            }
        }
        // Then the rest of the body and the completion still reach the delegate meanwhile
        #expect(finishedWhileBusy)
        #expect(try result.get().data == HostileOrigin.body(1_000_000))
    }
}

/// Keeps every thread of the global concurrent dispatch pool spinning until released, to force
/// the interleaving of a loaded machine: work queued there waits behind the spinners, while
/// serial queues (which libdispatch serves from its overcommit pool) still get a thread.
private final class BusyPool: Sendable {
    private struct State {
        var started = false
        var spinning = 0
        var released = false
        var timedOut = false
    }

    private let state = LockedBox(State())
    private let running = ProcessInfo.processInfo.activeProcessorCount
    /// More than the pool has threads: the ones beyond wait in the queue, ahead of later work.
    private let spinners = 4 * ProcessInfo.processInfo.activeProcessorCount + 16

    /// The first call occupies the pool and returns once a thread per processor spins; later
    /// calls do nothing.
    func occupyOnce() {
        guard state.withLock({ state in defer { state.started = true }; return !state.started }) else { return }
        let spinningEverywhere = DispatchSemaphore(value: 0)
        // Bounded, so a starved delegate fails the test instead of hanging it; 30 s, as a 1 MB
        // body under Thread Sanitizer beside 2 spinning cores and other suites took over 10 s
        // (fresh-clone make test).
        let deadline = ContinuousClock.now + .seconds(30)
        for _ in 0..<spinners {
            DispatchQueue.global().async {
                if self.state.withLock({ $0.spinning += 1; return $0.spinning }) == self.running { spinningEverywhere.signal() }
                while !self.state.withLock({ $0.released }) {
                    if ContinuousClock.now >= deadline {
                        self.state.withLock { $0.timedOut = true }
                        break
                    }
                }
                self.state.withLock { $0.spinning -= 1 }
            }
        }
        // Bounded too: a thread of the pool held elsewhere (another suite's task running in
        // parallel) can keep the spinners from all running at once; the test then fails on
        // `isBusy` instead of blocking this delegate queue for ever (seen under TSan).
        if spinningEverywhere.wait(timeout: .now() + 30) == .timedOut { state.withLock { $0.timedOut = true } }
    }

    /// Whether the pool has been busy all along: no spinner gave up waiting for the release.
    var isBusy: Bool { state.withLock { !$0.timedOut } }

    func release() {
        state.withLock { $0.released = true }
    }
}
