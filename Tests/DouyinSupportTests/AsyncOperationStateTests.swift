import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

/// An asynchronous operation over AsyncOperationState that counts how often its work ran.
///
/// KVO notifications cannot be counted directly (`didChangeValue(forKey:)` is not open on
/// Linux), but the queue's own bookkeeping runs on them: an operation whose finish was never
/// announced, or announced under the state's lock (the queue reads `isFinished` back), would
/// never drain from its queue, and these tests would hang.
private final class ProbeOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: the mutable counter lives in a LockedBox.
    let lifecycle = AsyncOperationState()
    let workRuns = LockedBox(0)
    let onStart: @Sendable (ProbeOperation) -> Void

    init(onStart: @escaping @Sendable (ProbeOperation) -> Void = { _ in }) {
        self.onStart = onStart
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lifecycle.isExecuting }
    override var isFinished: Bool { lifecycle.isFinished }

    override func start() {
        guard lifecycle.start(self) else { return }
        workRuns.withLock { $0 += 1 }
        onStart(self)
    }
}

@Suite("AsyncOperationState")
struct AsyncOperationStateTests {
    @Test func finishesOnAnotherThreadAfterStart() async {
        let queue = OperationQueue()
        let operation = ProbeOperation { operation in
            DispatchQueue.global().async { operation.lifecycle.finish(operation) }
        }
        queue.addOperation(operation)
        await drained(queue)
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
        #expect(operation.workRuns.withLock { $0 } == 1)
    }

    /// Foundation forbids finishing before the queue starts an operation; the finish is kept
    /// and carried out by start, and the work never runs.
    @Test func finishBeforeStartIsCarriedOutByStart() async {
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = ProbeOperation()
        queue.addOperation(operation)
        operation.lifecycle.finish(operation)
        #expect(!operation.isFinished)
        queue.isSuspended = false
        await drained(queue)
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
        #expect(operation.workRuns.withLock { $0 } == 0)
    }

    /// Finish racing from eight threads ends the operation once, and its queue drains.
    @Test func concurrentFinishesNotifyOnce() async {
        for _ in 0..<50 {
            let queue = OperationQueue()
            let operation = ProbeOperation { operation in
                DispatchQueue.concurrentPerform(iterations: 8) { _ in operation.lifecycle.finish(operation) }
            }
            queue.addOperation(operation)
            await drained(queue)
            #expect(operation.isFinished && !operation.isExecuting)
            #expect(operation.workRuns.withLock { $0 } == 1)
        }
    }

    /// A second start of a running operation used to finish it while its work still ran.
    @Test func secondStartDoesNotFinishARunningOperation() {
        let operation = ProbeOperation()
        operation.start()
        #expect(operation.lifecycle.start(operation) == false)
        #expect(operation.isExecuting && !operation.isFinished)
        operation.lifecycle.finish(operation)
        #expect(operation.isFinished && !operation.isExecuting)
        #expect(operation.lifecycle.start(operation) == false)
        #expect(operation.isFinished && !operation.isExecuting)
        #expect(operation.workRuns.withLock { $0 } == 1)
    }
}
