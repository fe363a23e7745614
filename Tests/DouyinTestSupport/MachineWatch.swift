import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time a machine ran, told apart from the spans it stood still: a pure state machine fed
/// the time of each tick of a thread that sleeps ``MachineWatch/tickInterval`` between them.
///
/// Why: in a CI run nothing in the test process ran for about 367 s, the hang guards' timers
/// included, and on waking five tests failed their five-minute guards together (earlier runs
/// stood still for 80 and 150 s). Whether the machine had stopped or the process's task pool
/// had (a stall like the one ``MachineWatch`` later caught in FoundationNetworking, which
/// `SessionTaskControl` removed) the log could not tell. A guard counted in ``liveTime`` ends a
/// wait that never ends and stays silent through a machine that stopped; the watch says which
/// of the two happened.
public struct LiveTimeMeter: Sendable, Equatable {
    /// The gap between two ticks above which the gap, less one tick, counts as standing still:
    /// 2 s. A tick a loaded machine serves late by less than that counts as running time.
    public static let standStillGap: Duration = .seconds(2)

    /// The time between ticks the feeding thread asks for.
    public let tickInterval: Duration
    /// When the last tick came, on the clock the ticks are read from.
    public private(set) var lastTick: Duration
    /// All the time stood still so far.
    public private(set) var stoodStill: Duration = .zero
    /// The longest single span stood still so far (`.zero` when none).
    public private(set) var longest: Duration = .zero
    /// How many spans stood still so far.
    public private(set) var spans = 0

    /// A meter whose first tick is `start`.
    public init(start: Duration, tickInterval: Duration) {
        self.lastTick = start
        self.tickInterval = tickInterval
    }

    /// Takes the tick that came at `now`; returns the span stood still before it, or `nil`
    /// when the gap was short enough to count as running. A clock read earlier than the last
    /// tick (it cannot go back, but a caller may race) counts as no time at all.
    public mutating func tick(at now: Duration) -> Duration? {
        let gap = max(now - lastTick, .zero)
        lastTick = max(now, lastTick)
        guard gap > Self.standStillGap else { return nil }
        let still = gap - tickInterval
        stoodStill += still
        longest = max(longest, still)
        spans += 1
        return still
    }

    /// The time the machine ran up to the last tick, on the ticks' clock: the clock's reading
    /// less every span stood still. Only read at a tick: between ticks a span not yet seen
    /// would count as running.
    public var liveTime: Duration { lastTick - stoodStill }
}

/// The test process's watch over the machine: a thread of its own ticking every 250 ms that
/// keeps a ``LiveTimeMeter``, wakes the sleepers of ``sleep(liveFor:)`` (the hang guards), and
/// says on stderr when the machine stood still or Swift's task pool stopped answering.
///
/// A span stood still is printed with what the clocks and the kernel saw across it (the boot
/// and monotonic clocks' gaps, the CPU time the hypervisor stole), so a CI log tells a paused
/// machine from a process that stopped itself. A probe task is sent to the task pool every
/// tick while none is out; one unanswered for 30 s while the machine ran is printed, and at
/// 60 s every thread's stack (gdb, once per process), since such a stall is a bug in here.
/// A summary line is printed when the process exits.
public final class MachineWatch: Sendable {
    /// The watch of this process, started on first use.
    public static let shared: MachineWatch = {
        let watch = MachineWatch(start: bootClock()) { line in
            FileHandle.standardError.write(Data("[machine watch] \(line)\n".utf8))
        }
        watch.startTicking()
        return watch
    }()

    /// The time between ticks: 250 ms.
    public static let tickInterval: Duration = .milliseconds(250)
    /// A probe of the task pool unanswered this long (while the machine ran) is printed: 30 s.
    static let poolLateReport: Duration = .seconds(30)
    /// ... and this long gets every thread's stack printed, once per process: 60 s.
    static let poolLateStacks: Duration = .seconds(60)
    /// A span stood still at least this long is printed as it ends: 5 s.
    static let standStillReport: Duration = .seconds(5)

    private final class Sleeper: @unchecked Sendable {
        // @unchecked: `phase` is only read and written under the watch's lock.
        /// `finished(true)`: the deadline came; `finished(false)`: cancelled.
        enum Phase { case pending, waiting(CheckedContinuation<Bool, Never>), finished(Bool) }
        let deadline: Duration
        var phase = Phase.pending
        init(deadline: Duration) { self.deadline = deadline }
    }

    private struct State {
        var meter: LiveTimeMeter
        var sleepers: [Sleeper] = []
        /// When the probe now out was sent, in live time; `nil` while none is out.
        var probeSent: Duration?
        var probeReported = false
        var stacksPrinted = false
        var latestAnswer: Duration = .zero
        var lastMonotonic: Duration
        var lastSteal: Int64
    }

    private let state: LockedBox<State>
    private let started: Duration
    private let say: @Sendable (String) -> Void

    /// A watch whose first tick is `start` on the boot clock and whose lines go to `say`. Only
    /// ``shared`` ticks by itself; a test of the watch makes its own and calls
    /// ``tick(boot:monotonic:steal:)``.
    public init(start: Duration, say: @escaping @Sendable (String) -> Void) {
        started = start
        self.say = say
        state = LockedBox(State(meter: LiveTimeMeter(start: start, tickInterval: Self.tickInterval),
                                lastMonotonic: Self.monotonicClock(), lastSteal: Self.stealTicks()))
    }

    /// The machine's live time now, as of the last tick (see ``LiveTimeMeter/liveTime``).
    public var liveTime: Duration { state.withLock { $0.meter.liveTime } }

    /// Whether a ``sleep(liveFor:)`` is waiting (for tests of the watch).
    public var hasSleepers: Bool { state.withLock { !$0.sleepers.isEmpty } }

    /// The time stood still since this watch started.
    public var stoodStill: Duration { state.withLock { $0.meter.stoodStill } }

    /// Returns `true` once `duration` of live time has passed (seen at a tick, so up to one
    /// tick late), or `false` as soon as the calling task is cancelled.
    public func sleep(liveFor duration: Duration) async -> Bool {
        let sleeper = state.withLock { state in
            let sleeper = Sleeper(deadline: state.meter.liveTime + duration)
            state.sleepers.append(sleeper)
            return sleeper
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let finishedFirst = state.withLock { _ -> Bool? in
                    if case .finished(let reached) = sleeper.phase { return reached }
                    sleeper.phase = .waiting(continuation)
                    return nil
                }
                if let finishedFirst { continuation.resume(returning: finishedFirst) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.sleepers.removeAll { $0 === sleeper }
                switch sleeper.phase {
                case .finished: return nil
                case .pending:
                    sleeper.phase = .finished(false)
                    return nil
                case .waiting(let continuation):
                    sleeper.phase = .finished(false)
                    return continuation
                }
            }
            waiting?.resume(returning: false)
        }
    }

    private func startTicking() {
        let thread = Thread { [self] in
            while true {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.tickInterval.components.attoseconds / 1_000_000_000))
                nanosleep(&pause, nil)
                tick(boot: Self.bootClock(), monotonic: Self.monotonicClock(), steal: Self.stealTicks())
            }
        }
        thread.name = "DouyinTestSupport.MachineWatch"
        thread.stackSize = 256 << 10
        thread.start()
        atexit { MachineWatch.shared.printSummary() }
    }

    /// Takes one tick read at `boot` and `monotonic` (clock readings) with `steal` the
    /// hypervisor's steal count then (`/proc/stat` clock ticks): wakes the sleepers now due,
    /// says what stood still, sends or checks the pool's probe.
    public func tick(boot bootNow: Duration, monotonic monotonicNow: Duration, steal stealNow: Int64) {
        var due: [CheckedContinuation<Bool, Never>] = []
        var sendProbe = false
        var poolLate: Duration?
        var printStacks = false
        var report: String?
        state.withLock { state in
            let bootGap = bootNow - state.meter.lastTick, monotonicGap = monotonicNow - state.lastMonotonic
            let stolenTicks = stealNow - state.lastSteal
            state.lastMonotonic = monotonicNow
            state.lastSteal = stealNow
            if let stood = state.meter.tick(at: bootNow), stood >= Self.standStillReport {
                let perSecond = max(Int64(sysconf(Int32(_SC_CLK_TCK))), 1)
                report = "this machine stood still \(Self.seconds(stood)), \(Self.seconds(bootNow - bootGap - started)) after the watch started: "
                    + "over one tick of \(Self.seconds(Self.tickInterval)) the boot clock moved \(Self.seconds(bootGap)), "
                    + "the monotonic clock \(Self.seconds(monotonicGap)), and the hypervisor stole "
                    + "\(Self.seconds(.milliseconds(max(stolenTicks, 0) * 1000 / perSecond))) of CPU; hang guards do not count it"
            }
            let live = state.meter.liveTime
            state.sleepers.removeAll { sleeper in
                guard sleeper.deadline <= live else { return false }
                if case .waiting(let continuation) = sleeper.phase { due.append(continuation) }
                sleeper.phase = .finished(true)
                return true
            }
            guard let sent = state.probeSent else {
                state.probeSent = live
                state.probeReported = false
                sendProbe = true
                return
            }
            let late = live - sent
            if late >= Self.poolLateReport, !state.probeReported {
                state.probeReported = true
                poolLate = late
            }
            if late >= Self.poolLateStacks, !state.stacksPrinted {
                state.stacksPrinted = true
                printStacks = true
            }
        }
        for continuation in due { continuation.resume(returning: true) }
        if let report { say(report) }
        if let poolLate { say("Swift's task pool has not run a task sent \(Self.seconds(poolLate)) ago while the machine ran") }
        if printStacks { say("every thread's stack:\n" + Self.stacksOfThisProcess()) }
        if sendProbe {
            Task.detached { [state] in
                state.withLock { state in
                    if let sent = state.probeSent { state.latestAnswer = max(state.latestAnswer, state.meter.liveTime - sent) }
                    state.probeSent = nil
                }
            }
        }
    }

    private func printSummary() {
        let (meter, latest) = state.withLock { ($0.meter, $0.latestAnswer) }
        say("over \(Self.seconds(meter.lastTick - started)) this machine stood still \(Self.seconds(meter.stoodStill)) in \(meter.spans) span(s), "
                 + "the longest \(Self.seconds(meter.longest)); Swift's task pool answered a probe at most \(Self.seconds(latest)) late")
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        return String(format: "%.1f s", Double(whole) + Double(atto) / 1e18)
    }

    private static func clock(_ id: clockid_t) -> Duration {
        var now = timespec()
        clock_gettime(id, &now)
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    /// The clock `ContinuousClock` and so swift-testing's time limits read: it counts a
    /// suspended machine too (`CLOCK_BOOTTIME` on Linux).
    static func bootClock() -> Duration {
        #if os(Linux)
        clock(CLOCK_BOOTTIME)
        #else
        clock(CLOCK_MONOTONIC)
        #endif
    }

    static func monotonicClock() -> Duration {
        #if os(Linux)
        clock(CLOCK_MONOTONIC)
        #else
        clock(CLOCK_UPTIME_RAW)
        #endif
    }

    /// The `steal` field of `/proc/stat`'s first line, in clock ticks; 0 without one.
    static func stealTicks() -> Int64 {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let first = text.split(separator: "\n").first else { return 0 }
        let fields = first.split(separator: " ")
        // "cpu user nice system idle iowait irq softirq steal ..."
        return fields.count > 8 ? Int64(fields[8]) ?? 0 : 0
    }

    /// Every thread's stack of this process, from gdb run for a moment (empty without gdb).
    static func stacksOfThisProcess() -> String {
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb) else { return "(no gdb)" }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-stacks-\(getpid()).txt")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // At most 20 s (as Tool's look into a child): a gdb that hung would stop the ticks, and
        // with them every hang guard.
        let limiter = "/usr/bin/timeout"
        let arguments = [limiter, "20", gdb, "-q", "-batch", "-p", "\(getpid())", "-ex", "thread apply all bt 30"]
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        guard posix_spawn(&child, limiter, &actions, nil, &argv, &envp) == 0 else { return "(gdb did not start)" }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        defer { try? FileManager.default.removeItem(at: output) }
        // Only the threads and their frames: gdb's own warnings about debug sections are noise.
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let frames = text.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
        return frames.isEmpty ? "(gdb printed no stack)" : frames.joined(separator: "\n")
    }
}
