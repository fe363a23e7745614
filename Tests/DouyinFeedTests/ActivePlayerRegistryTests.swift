import DouyinFeed
import DouyinSupport
import Testing

/// A player that records what it was told, in one log shared by all players of a test.
final class RecordingPlayer: Player {
    let name: String
    let log: LockedBox<[String]>

    init(_ name: String, log: LockedBox<[String]>) {
        self.name = name
        self.log = log
    }

    func play() { log.withLock { $0.append("play \(name)") } }
    func pause() { log.withLock { $0.append("pause \(name)") } }
}

@Suite("One active player")
struct ActivePlayerRegistryTests {
    @Test func playingOnePausesEveryOtherFirst() {
        let log = LockedBox<[String]>([])
        let registry = ActivePlayerRegistry()
        let a = RecordingPlayer("a", log: log), b = RecordingPlayer("b", log: log), c = RecordingPlayer("c", log: log)
        [a, b, c].forEach(registry.register)
        registry.play(b)
        let events = log.withLock { $0 }
        #expect(events.last == "play b")
        #expect(Set(events.dropLast()) == ["pause a", "pause c"])
        #expect(registry.active === b)
    }

    @Test func registryHoldsPlayersWeakly() {
        let log = LockedBox<[String]>([])
        let registry = ActivePlayerRegistry()
        var gone: RecordingPlayer? = RecordingPlayer("gone", log: log)
        weak let watch = gone
        registry.register(gone!)
        registry.play(gone!)
        gone = nil
        #expect(watch == nil, "the registry kept a player alive")
        #expect(registry.active == nil)
        #expect(registry.count == 0)
        let next = RecordingPlayer("next", log: log)
        registry.play(next)
        #expect(log.withLock { $0 } == ["play gone", "play next"])
    }

    @Test func removedPlayerIsNeverPausedAgain() {
        let log = LockedBox<[String]>([])
        let registry = ActivePlayerRegistry()
        let a = RecordingPlayer("a", log: log), b = RecordingPlayer("b", log: log)
        registry.play(a)
        registry.remove(a)
        #expect(registry.active == nil)
        registry.play(b)
        #expect(log.withLock { $0 } == ["play a", "play b"])
        #expect(registry.count == 1)
    }

    @Test func pauseActivePausesOnlyThePlayingOne() {
        let log = LockedBox<[String]>([])
        let registry = ActivePlayerRegistry()
        let a = RecordingPlayer("a", log: log), b = RecordingPlayer("b", log: log)
        registry.register(a)
        registry.play(b)
        registry.pauseActive()
        registry.pauseActive()
        #expect(log.withLock { $0 } == ["pause a", "play b", "pause b"])
    }

    @Test func concurrentPlaysLeaveExactlyOneActive() async {
        let log = LockedBox<[String]>([])
        let registry = ActivePlayerRegistry()
        let players = (0..<16).map { RecordingPlayer("p\($0)", log: log) }
        await withTaskGroup(of: Void.self) { group in
            for player in players { group.addTask { registry.play(player) } }
        }
        let active = registry.active
        #expect(active != nil)
        #expect(players.contains { $0 === active })
    }
}
