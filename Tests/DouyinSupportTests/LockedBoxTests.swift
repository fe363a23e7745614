import DouyinSupport
import Foundation
import Testing

@Suite("LockedBox")
struct LockedBoxTests {
    @Test func transactionsFromManyThreadsAreNotLost() {
        let box = LockedBox((count: 0, log: [Int]()))
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<1_000 {
                box.withLock { state in
                    state.count += 1
                    if step == 0 { state.log.append(worker) }
                }
            }
        }
        let final = box.withLock { $0 }
        #expect(final.count == 8_000)
        #expect(final.log.sorted() == Array(0..<8))
    }

    @Test func rethrowsAndKeepsChangesMadeBeforeTheThrow() {
        struct Stop: Error {}
        let box = LockedBox(1)
        #expect(throws: Stop.self) {
            try box.withLock { value in
                value = 2
                throw Stop()
            }
        }
        #expect(box.withLock { $0 } == 2)
    }
}
