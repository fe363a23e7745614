import DouyinTestSupport
import Testing

/// A test's hang guard: a test case still running after ``limit`` of the machine's live time
/// (``MachineWatch``) records an issue saying so and is cancelled.
///
/// The guard is there to end a wait that would never end, not to time the code (speed lives in
/// `make bench`), so it is far above what a loaded machine takes: a whole-suite run on two
/// cores, 24 tests at once, has stood still for 80 s (tests whose bodies take milliseconds
/// reported 82 s), and one-minute limits failed there; under Thread Sanitizer everything runs
/// 5-20x slower. Why not swift-testing's `.timeLimit`: it counts the wall clock, so a machine
/// that stops (a paused VM) fails every limit running across the pause. In a CI run nothing in
/// the test process ran for about 367 s and five tests failed their five-minute limits at the
/// same moment; the cause was most likely the process's own task pool (see ``MachineWatch``),
/// but the log could not tell.
///
/// On a suite it guards each test case of each test in it.
public struct HangGuard: TestTrait, SuiteTrait, TestScoping {
    /// The default limit in minutes: 5, or 10 when ``ThreadSanitizer/isActive``.
    public static let minutes = ThreadSanitizer.isActive ? 10 : 5

    /// The live time a test case may run.
    public let limit: Duration

    /// A guard of `limit` live time.
    public init(limit: Duration) {
        self.limit = limit
    }

    /// `true`: a guard on a suite guards every test case in it.
    public var isRecursive: Bool { true }

    /// Each test case gets a guard of its own; a suite or a parameterized test as a whole none.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> HangGuard? {
        testCase == nil ? nil : self
    }

    /// Runs the test case under ``run(_:limit:watch:exceeded:)``.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let limit = self.limit
        try await Self.run(function, limit: limit, watch: .shared) { stoodStill in
            Issue.record("Time limit was exceeded: \(limit) while the machine ran (it stood still \(stoodStill) besides)")
        }
    }

    /// Runs `body` and returns or throws as it does. When `body` is still running after
    /// `limit` of `watch`'s live time, calls `exceeded` with the time the machine stood still
    /// meanwhile, cancels `body` and waits for it to end; a `CancellationError` it then throws
    /// is not rethrown (`exceeded` said what happened).
    public static func run(_ body: @Sendable () async throws -> Void, limit: Duration, watch: MachineWatch,
                           exceeded: @Sendable (Duration) -> Void) async throws {
        enum Outcome { case bodyEnded, limitReached, guardCancelled }
        let stoodBefore = watch.stoodStill
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    try await body()
                    return .bodyEnded
                }
                group.addTask { await watch.sleep(liveFor: limit) ? .limitReached : .guardCancelled }
                let first = try await group.next()
                guard first == .limitReached else {
                    // The body ended (or this task was cancelled from outside): the sleeper goes.
                    group.cancelAll()
                    try await group.waitForAll()
                    return
                }
                exceeded(watch.stoodStill - stoodBefore)
                group.cancelAll()
                do {
                    try await group.waitForAll()
                } catch is CancellationError {
                }
            }
        }
    }
}

extension Trait where Self == HangGuard {
    /// A hang guard of ``HangGuard/minutes`` minutes of live time.
    public static var hangGuard: HangGuard { HangGuard(limit: .seconds(60 * HangGuard.minutes)) }

    /// A hang guard of `minutes` minutes of live time.
    public static func hangGuard(minutes: Int) -> HangGuard { HangGuard(limit: .seconds(60 * minutes)) }
}
