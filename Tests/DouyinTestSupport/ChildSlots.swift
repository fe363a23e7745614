/// At most `limit` children of the test process at once, for the harnesses that start a tool
/// run per test case.
///
/// Why: Swift Testing runs every case of a parameterized test at once, and the tool tests once
/// had about a hundred `douyinkit` runs going together, the test process holding 1,100-1,400
/// descriptors. Past about 1,360, swift-corelibs-foundation 6.3's `Process.run()` reads beyond
/// its `/proc/self/fd` buffer and can crash the test process (fixed on that project's main
/// branch in May 2026, not in the 6.3 releases). Waiting for a slot costs nothing the tests
/// measure: speed is checked in `make bench`, not here.
public actor ChildSlots {
    /// The slots every `Tool.run` shares.
    public static let shared = ChildSlots(limit: 8)

    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A pool of `limit` slots (at least one).
    public init(limit: Int) {
        free = max(1, limit)
    }

    /// Runs `body` once a slot is free, and frees the slot when it ends, thrown or not.
    public func withSlot<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            free += 1
        } else {
            // The slot passes straight to the longest waiter.
            waiters.removeFirst().resume()
        }
    }
}
