import DouyinSupport
import Foundation

/// One unit's time on screen as an `Operation`: executing while the unit shows, finished
/// when it hides, so a UI can hang its animation on the operation (KVO on `isExecuting` and
/// `isFinished`, or on the queue).
///
/// ``GiftComboRunner`` adds it to its track's queue when the engine shows the unit, and
/// finishes it when the engine hides it; cancelling it does not hide the unit. Its KVO
/// notifications are sent from the runner's delivery queue with no runner lock held, so an
/// observer may call back into the runner.
public final class GiftDisplayOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is not Sendable; the mutable flags live in `lifecycle`.

    /// The unit's sender and gift.
    public let key: GiftKey
    /// The unit's id in the engine.
    public let unit: Int
    /// The track it shows on.
    public let track: Int

    private let lifecycle = AsyncOperationState()

    /// Test hook: runs right after `start()` and `finish()` have sent their KVO notifications
    /// (`isExecuting`, `isFinished`), on the same thread and with the same locks held (none) as
    /// an Apple KVO observer of them. swift-corelibs-foundation has neither `observe(_:)` nor an
    /// overridable `didChangeValue(forKey:)`, so Linux tests observe here.
    package let changeProbe = LockedBox<(@Sendable (GiftDisplayOperation, String) -> Void)?>(nil)

    init(key: GiftKey, unit: Int, track: Int) {
        self.key = key
        self.unit = unit
        self.track = track
        super.init()
    }

    /// Always true: the operation stays executing until the runner finishes it.
    public override var isAsynchronous: Bool { true }
    /// Whether the unit is on screen.
    public override var isExecuting: Bool { lifecycle.isExecuting }
    /// Whether the unit has hidden.
    public override var isFinished: Bool { lifecycle.isFinished }

    /// Marks the operation executing, or finishes it at once if the unit already hid.
    public override func start() {
        let began = lifecycle.start(self)
        changeProbe.withLock { $0 }?(self, began ? "isExecuting" : "isFinished")
    }

    /// Marks the operation finished: the unit left the screen. Before the queue has started
    /// it, only notes that, since an operation may not finish before it starts.
    func finish() {
        lifecycle.finish(self)
        if isFinished { changeProbe.withLock { $0 }?(self, "isFinished") }
    }
}
