import DouyinChat
import DouyinTestSupport
import Testing

typealias Machine = ChatConnectionMachine

func makeMachine(seed: UInt64 = 42) -> Machine {
    Machine(policy: ReconnectPolicy(), heartbeat: .seconds(25), pongTimeout: .seconds(10), random: SeededRandom(seed: seed))
}

func retryDelay(_ actions: [Machine.Action]) -> Duration? {
    for case .startTimer(.retry, let delay) in actions { return delay }
    return nil
}

func retryTimer(_ actions: [Machine.Action]) -> Machine.Timer? {
    for case .startTimer(let timer, _) in actions { if case .retry = timer { return timer } }
    return nil
}

@Suite("Chat connection rules")
struct ChatConnectionMachineTests {
    @Test func backoffGrowsExponentiallyWithFullJitterUpToTheCap() {
        let policy = ReconnectPolicy()
        #expect((0..<9).map { policy.ceiling(attempt: $0) } == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        var random = SeededRandom(seed: 7)
        var machine = makeMachine(seed: random.seed)
        var actions = machine.start()
        #expect(actions == [.report(.connecting(attempt: 0)), .connect(generation: 1)])
        var delays: [Duration] = []
        for attempt in 0..<12 {
            actions = machine.connectFailed(generation: attempt + 1, error: .connectFailed(host: "h", port: 1, errno: 111))
            guard let delay = retryDelay(actions), let timer = retryTimer(actions) else {
                Issue.record("no retry scheduled at attempt \(attempt): \(actions) \(random)")
                return
            }
            #expect(delay >= .zero && delay <= policy.ceiling(attempt: attempt), "attempt \(attempt) \(random)")
            delays.append(delay)
            actions = machine.timerFired(timer, at: .zero)
            #expect(actions.contains(.connect(generation: attempt + 2)), "\(random)")
        }
        // Full jitter: not all at the ceiling, not all equal.
        #expect(Set(delays).count > 6, "\(delays) \(random)")
        _ = random.next()
    }

    @Test func jitterIsUniformOverTheWholeRange() {
        var random = SeededRandom(seed: 99)
        let policy = ReconnectPolicy()
        let draws = (0..<4000).map { _ in policy.delay(attempt: 3, using: &random) }
        let low = draws.filter { $0 < .seconds(4) }.count
        // Uniform in 0...8 s: about half below 4 s.
        #expect((1700...2300).contains(low), "\(low) of 4000 below the middle, \(random)")
        #expect(draws.allSatisfy { $0 <= .seconds(8) })
    }

    @Test func theCountResetsAfterAStableConnection() {
        var machine = makeMachine()
        _ = machine.start()
        // Two failures: attempt 2.
        for generation in 1...2 {
            let actions = machine.connectFailed(generation: generation, error: .timedOut(stage: "connect"))
            _ = machine.timerFired(retryTimer(actions)!, at: .zero)
        }
        #expect(machine.state == .connecting(attempt: 2))
        _ = machine.connected(generation: 3, at: .seconds(100))
        // Open 29 s: not stable, the count goes on.
        var actions = machine.disconnected(generation: 3, error: .connectionLost(errno: 0), at: .seconds(129))
        #expect(machine.attempt == 3)
        _ = machine.timerFired(retryTimer(actions)!, at: .seconds(130))
        _ = machine.connected(generation: 4, at: .seconds(130))
        actions = machine.disconnected(generation: 4, error: .connectionLost(errno: 0), at: .seconds(160))
        #expect(machine.attempt == 1, "open 30 s: reset, this retry is attempt 0")
        #expect(retryDelay(actions)! <= .seconds(1))
    }

    @Test func stopNeverReconnects() {
        var machine = makeMachine()
        _ = machine.start()
        _ = machine.connected(generation: 1, at: .zero)
        let stopped = machine.stop()
        #expect(stopped == [.cancelTimers, .close(generation: 1, code: 1000), .report(.closed)])
        #expect(machine.disconnected(generation: 1, error: .connectionLost(errno: 0), at: .seconds(1)).isEmpty)
        #expect(machine.timerFired(.retry(token: 1), at: .seconds(2)).isEmpty)
        #expect(machine.reachabilityChanged(true).isEmpty)
        #expect(machine.start().isEmpty)
        #expect(machine.stop().isEmpty, "idempotent")
        #expect(machine.state == .closed)
        // Stopped while waiting: the pending retry does nothing.
        var waiting = makeMachine()
        _ = waiting.start()
        let timer = retryTimer(waiting.connectFailed(generation: 1, error: .timedOut(stage: "connect")))!
        _ = waiting.stop()
        #expect(waiting.timerFired(timer, at: .seconds(5)).isEmpty)
    }

    @Test(arguments: [ChatError.handshakeRejected(status: 401, reason: "Unauthorized"), .handshakeRejected(status: 403, reason: "Forbidden")])
    func aRefusedHandshakeGivesUp(error: ChatError) {
        var machine = makeMachine()
        _ = machine.start()
        let actions = machine.connectFailed(generation: 1, error: error)
        #expect(actions.contains(.reportError(error)))
        #expect(machine.state == .gaveUp(error))
        #expect(retryTimer(actions) == nil)
    }

    @Test func serverErrorsAndOtherClosesRetry() {
        var refused = makeMachine()
        _ = refused.start()
        #expect(retryTimer(refused.connectFailed(generation: 1, error: .handshakeRejected(status: 503, reason: "busy"))) != nil)
        for error in [ChatError.closed(code: 1001, reason: ""), .protocolViolation("x", closeCode: 1002), .pongTimeout] {
            var machine = makeMachine()
            _ = machine.start()
            _ = machine.connected(generation: 1, at: .zero)
            #expect(retryTimer(machine.disconnected(generation: 1, error: error, at: .seconds(1))) != nil, "\(error)")
        }
    }

    @Test func aPolicyCloseGivesUp() {
        var machine = makeMachine()
        _ = machine.start()
        _ = machine.connected(generation: 1, at: .zero)
        let actions = machine.disconnected(generation: 1, error: .closed(code: 1008, reason: "banned"), at: .seconds(1))
        #expect(retryTimer(actions) == nil)
        #expect(machine.state == .gaveUp(.closed(code: 1008, reason: "banned")))
    }

    @Test func heartbeatPingsAndAMissingPongMeansDead() {
        var machine = makeMachine()
        _ = machine.start()
        let opened = machine.connected(generation: 1, at: .zero)
        #expect(opened.contains(.startTimer(.heartbeat(generation: 1), after: .seconds(25))))
        var actions = machine.timerFired(.heartbeat(generation: 1), at: .seconds(25))
        #expect(actions == [.ping(generation: 1), .startTimer(.pongDeadline(generation: 1, ping: 1), after: .seconds(10))])
        // The pong comes: the next heartbeat is scheduled; the old deadline does nothing.
        actions = machine.pongReceived(generation: 1)
        #expect(actions == [.startTimer(.heartbeat(generation: 1), after: .seconds(25))])
        #expect(machine.timerFired(.pongDeadline(generation: 1, ping: 1), at: .seconds(35)).isEmpty)
        // Next ping gets no pong: closed and a retry scheduled.
        _ = machine.timerFired(.heartbeat(generation: 1), at: .seconds(60))
        actions = machine.timerFired(.pongDeadline(generation: 1, ping: 2), at: .seconds(70))
        #expect(actions.first == .close(generation: 1, code: 1001))
        #expect(actions.contains(.reportError(.pongTimeout)))
        #expect(retryTimer(actions) != nil)
        #expect(machine.state == .waiting(attempt: 1, delay: retryDelay(actions)))
    }

    @Test func offlineWaitsWithoutAttemptsAndConnectsWhenTheNetworkReturns() {
        var machine = makeMachine()
        _ = machine.start()
        let timer = retryTimer(machine.connectFailed(generation: 1, error: .connectFailed(host: "h", port: 1, errno: 101)))!
        #expect(machine.reachabilityChanged(false).isEmpty)
        #expect(machine.timerFired(timer, at: .seconds(100)).isEmpty, "no attempt while offline")
        #expect(machine.state == .waiting(attempt: 1, delay: nil))
        let back = machine.reachabilityChanged(true)
        #expect(back == [.cancelTimers, .report(.connecting(attempt: 1)), .connect(generation: 2)], "at once")
        // Starting offline: waits, then connects when online.
        var offline = makeMachine()
        _ = offline.reachabilityChanged(false)
        #expect(offline.start() == [.report(.waiting(attempt: 0, delay: nil))])
        #expect(offline.reachabilityChanged(true).contains(.connect(generation: 1)))
    }

    @Test func aReconnectFillsTheGapButTheFirstConnectDoesNot() {
        var machine = makeMachine()
        _ = machine.start()
        #expect(!machine.connected(generation: 1, at: .zero).contains(.fillGap))
        let timer = retryTimer(machine.disconnected(generation: 1, error: .connectionLost(errno: 0), at: .seconds(5)))!
        _ = machine.timerFired(timer, at: .seconds(6))
        #expect(machine.connected(generation: 2, at: .seconds(6)).contains(.fillGap))
    }

    @Test func eventsOfAnOldGenerationAreIgnored() {
        var machine = makeMachine()
        _ = machine.start()
        _ = machine.connected(generation: 1, at: .zero)
        let timer = retryTimer(machine.disconnected(generation: 1, error: .connectionLost(errno: 0), at: .seconds(1)))!
        _ = machine.timerFired(timer, at: .seconds(2))
        #expect(machine.disconnected(generation: 1, error: .connectionLost(errno: 0), at: .seconds(3)).isEmpty)
        #expect(machine.pongReceived(generation: 1).isEmpty)
        #expect(machine.connected(generation: 1, at: .seconds(3)) == [.close(generation: 1, code: 1000)], "a stale socket is closed")
    }

    @Test func propertyNoRandomInputSequenceReconnectsAfterStopOrGivingUp() {
        var random = SeededRandom(seed: 0xC0FFEE)
        for round in 0..<2000 {
            var machine = makeMachine(seed: random.next())
            var final = false
            var now = Duration.zero
            _ = machine.start()
            for _ in 0..<30 {
                now += .milliseconds(Int64.random(in: 0...40_000, using: &random))
                let generation = Int.random(in: max(1, machine.generation - 1)...machine.generation + 1, using: &random)
                let actions: [Machine.Action]
                switch Int.random(in: 0..<9, using: &random) {
                case 0: actions = machine.connected(generation: generation, at: now)
                case 1: actions = machine.connectFailed(generation: generation, error: [.timedOut(stage: "connect"), .handshakeRejected(status: 403, reason: "")].randomElement(using: &random)!)
                case 2: actions = machine.disconnected(generation: generation, error: [.connectionLost(errno: 0), .closed(code: 1008, reason: "")].randomElement(using: &random)!, at: now)
                case 3: actions = machine.reachabilityChanged(Bool.random(using: &random))
                case 4: actions = machine.timerFired(.retry(token: Int.random(in: 0...40, using: &random)), at: now)
                case 5: actions = machine.timerFired(.heartbeat(generation: generation), at: now)
                case 6: actions = machine.timerFired(.pongDeadline(generation: generation, ping: Int.random(in: 0...5, using: &random)), at: now)
                case 7: actions = machine.pongReceived(generation: generation)
                default: actions = Int.random(in: 0..<5, using: &random) == 0 ? machine.stop() : []
                }
                let connects = actions.filter { if case .connect = $0 { return true } else { return false } }
                if final { #expect(connects.isEmpty, "connect after stop/give-up, round \(round) \(random)") }
                #expect(connects.count <= 1, "round \(round) \(random)")
                switch machine.state {
                case .closed, .gaveUp: final = true
                default: #expect(!final, "left a final state, round \(round) \(random)")
                }
            }
        }
    }
}
