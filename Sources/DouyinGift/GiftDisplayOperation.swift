import Foundation


/// One unit's time on screen as an `Operation`: executing while the unit shows, finished
/// when it hides, so a UI can hang its animation on the operation (KVO on `isExecuting` and
/// `isFinished`, or on the queue).
///
/// ``GiftComboRunner`` adds it to its track's queue when the engine shows the unit, and
/// finishes it when the engine hides it; cancelling it does not hide the unit.
public final class GiftDisplayOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is not Sendable; every mutable field here is behind `flags`.

    /// The unit's sender and gift.
    public let key: GiftKey
    /// The unit's id in the engine.
    public let unit: Int
    /// The track it shows on.
    public let track: Int

    private struct Flags {
        var executing = false
        var finished = false
        /// The unit hid before the queue started the operation; `start()` finishes it.
        var hidBeforeStart = false
    }

    private let flags = Protected(Flags())

    init(key: GiftKey, unit: Int, track: Int) {
        self.key = key
        self.unit = unit
        self.track = track
        super.init()
    }

    /// Always true: the operation stays executing until the runner finishes it.
    public override var isAsynchronous: Bool { true }
    /// Whether the unit is on screen.
    public override var isExecuting: Bool { flags.withLock { $0.executing } }
    /// Whether the unit has hidden.
    public override var isFinished: Bool { flags.withLock { $0.finished } }

    /// Marks the operation executing, or finishes it at once if the unit already hid.
    public override func start() {
        willChangeValue(forKey: "isExecuting")
        // Decided under the lock with `finish()`'s check, so a hide racing the start is never lost.
        let hid = flags.withLock { flags -> Bool in
            if flags.hidBeforeStart || flags.finished { return true }
            flags.executing = true
            return false
        }
        didChangeValue(forKey: "isExecuting")
        if hid { markFinished(wasExecuting: false) }
    }

    /// Marks the operation finished: the unit left the screen. Before the queue has started
    /// it, only notes that, since an operation may not finish before it starts.
    func finish() {
        let started = flags.withLock { flags -> Bool in
            if !flags.executing && !flags.finished { flags.hidBeforeStart = true }
            return flags.executing
        }
        if started { markFinished(wasExecuting: true) }
    }

    private func markFinished(wasExecuting: Bool) {
        willChangeValue(forKey: "isFinished")
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        flags.withLock { $0 = Flags(executing: false, finished: true, hidBeforeStart: $0.hidBeforeStart) }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
    }
}
