@testable import DouyinGift
import DouyinTestSupport
import Foundation
import Testing

@Suite("GiftDisplayOperation lifecycle")
struct GiftDisplayOperationTests {
    @Test func aUnitHiddenBeforeItsQueueStartsItFinishesWhenStarted() async {
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = GiftDisplayOperation(key: GiftKey(user: "u", gift: "g"), unit: 1, track: 0)
        queue.addOperation(operation)
        operation.finish()
        #expect(!operation.isFinished, "not finished before the queue started it")
        queue.isSuspended = false
        await drained(queue)
        #expect(operation.isFinished && !operation.isExecuting)
    }
}
