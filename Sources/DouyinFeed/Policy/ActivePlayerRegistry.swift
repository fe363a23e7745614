import DouyinSupport
import Foundation

/// Something that plays a video: an `AVPlayer` wrapper, a test double.
///
/// - Important: ``play()`` and ``pause()`` are called on the thread that called the registry,
///   outside its lock; they must not call back into the registry synchronously.
public protocol Player: AnyObject, Sendable {
    /// Starts or resumes playback.
    func play()
    /// Pauses playback.
    func pause()
}

/// Makes sure exactly one video plays: ``play(_:)`` pauses every other registered player first.
///
/// Holds players weakly (a player that goes away drops out by itself) and forgets one on
/// ``remove(_:)``, so cells reused or released never keep players alive (the original demo
/// kept every player it ever made).
public final class ActivePlayerRegistry: Sendable {
    private struct Entry {
        weak var player: (any Player)?
    }

    private struct State {
        var players: [ObjectIdentifier: Entry] = [:]
        var active: ObjectIdentifier?
    }

    private let state = LockedBox(State())

    /// An empty registry.
    public init() {}

    /// Adds `player` (held weakly); registering twice is harmless.
    public func register(_ player: any Player) {
        state.withLock { $0.players[ObjectIdentifier(player)] = Entry(player: player) }
    }

    /// Forgets `player`; if it was the active one, none is active. Does not pause it.
    public func remove(_ player: any Player) {
        state.withLock { state in
            let id = ObjectIdentifier(player)
            state.players[id] = nil
            if state.active == id { state.active = nil }
        }
    }

    /// Pauses every other registered player, then plays `player` (registering it if needed).
    public func play(_ player: any Player) {
        let id = ObjectIdentifier(player)
        let others = state.withLock { state -> [any Player] in
            state.players = state.players.filter { $0.value.player != nil }
            state.players[id] = Entry(player: player)
            state.active = id
            return state.players.compactMap { $0.key == id ? nil : $0.value.player }
        }
        // Outside the lock: a player's pause may take time or log.
        for other in others { other.pause() }
        player.play()
    }

    /// Pauses the active player, if any; none is active afterwards.
    public func pauseActive() {
        let active = state.withLock { state -> (any Player)? in
            defer { state.active = nil }
            return state.active.flatMap { state.players[$0]?.player }
        }
        active?.pause()
    }

    /// The player playing now, if it is still alive and registered.
    public var active: (any Player)? {
        state.withLock { state in state.active.flatMap { state.players[$0]?.player } }
    }

    /// How many registered players are still alive.
    public var count: Int {
        state.withLock { state in state.players.values.filter { $0.player != nil }.count }
    }
}
