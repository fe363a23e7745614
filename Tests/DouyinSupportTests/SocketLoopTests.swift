import DouyinSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket loop's own rules, on real sockets (a connected Unix socket pair): each waiter of
/// a descriptor wakes for its own event, tasks made with `task(_:)` run on the loop's thread,
/// and a loop that stops strands no task. A broken rule would leave a task waiting for ever:
/// each is awaited through ``value(of:)``, which gives up after 600 s (a watchdog, not a wait
/// for work: a passing test never reaches it). Generous on purpose: in `make test` the pool's
/// two threads were held for 55–100 s at the start of a pass, and a watchdog whose sleep ends
/// in that time races the value it guards once the pool frees up.
@Suite
struct SocketLoopTests {
    /// The value of `task`, or `nil` when it has not ended within 600 s.
    func value<Success: Sendable>(of task: Task<Success, Never>) async -> Success? {
        let (stream, continuation) = AsyncStream<Success>.makeStream()
        // Unstructured: awaiting a task's value ignores cancellation, so a stranded task
        // must not hold up the group below.
        Task { continuation.yield(await task.value) }
        return await withTaskGroup(of: Success?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(600))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// A connected pair of non-blocking stream sockets, closed by `close()`.
    struct SocketPair {
        let ends: (Int32, Int32)

        init() throws {
            var fds: [Int32] = [-1, -1]
            #if canImport(Glibc)
            let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            #else
            let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &fds)
            #endif
            try #require(made == 0)
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            ends = (fds[0], fds[1])
        }

        func closeBoth() {
            for fd in [ends.0, ends.1] { _ = close(fd) }
        }
    }

    /// Whether `count` waits are registered on `loop`, yielding between looks (bounded: a
    /// registration is a lock away once the task runs).
    func registered(_ count: Int, on loop: SocketLoop) async -> Bool {
        for _ in 0..<100_000 {
            if loop.waiterCount >= count { return true }
            await Task.yield()
        }
        return false
    }

    @Test func aReaderAndAWriterOfOneSocketEachWakeForTheirOwnEvent() async throws {
        let loop = try SocketLoop()
        defer { loop.stop() }
        let pair = try SocketPair()
        defer { pair.closeBoth() }
        let fd = pair.ends.0
        // The reader waits first; the writer's wait on the same descriptor (room is there at
        // once) must neither wake the reader nor leave it unwatched once the writer's one-shot
        // report disarmed the descriptor.
        let reader = loop.task { () -> Int in
            try? await loop.wait(for: Int16(POLLIN), on: fd, deadline: nil)
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, 0)
        }
        // The writer waits only once the reader's wait is registered (and its socket armed), so
        // the two share the descriptor.
        #expect(await registered(1, on: loop))
        try await loop.wait(for: Int16(POLLOUT), on: fd, deadline: nil)
        // A reader woken by the writer's event would have read (and found nothing) on the
        // loop's thread before the loop's next turns; this wait's timeout comes after them.
        await #expect(throws: SocketError.timedOut) {
            try await loop.wait(for: Int16(POLLIN), on: pair.ends.1, deadline: .now + .milliseconds(20))
        }
        var byte: UInt8 = 7
        #expect(send(pair.ends.1, &byte, 1, 0) == 1)
        // Woken by the byte, not by the writer's event: the byte is there to read.
        #expect(await value(of: reader) == 1)
    }

    @Test func aTaskOfTheLoopRunsOnItsThreadAndAPlainTaskDoesNot() async throws {
        let loop = try SocketLoop()
        defer { loop.stop() }
        let pair = try SocketPair()
        defer { pair.closeBoth() }
        let sides = await value(of: loop.task { () -> [Bool] in
            // Before and after a wait the loop resumed: both on its thread.
            let before = loop.isCurrent
            var byte: UInt8 = 1
            _ = send(pair.ends.1, &byte, 1, 0)
            try? await loop.wait(for: Int16(POLLIN), on: pair.ends.0, deadline: nil)
            return [before, loop.isCurrent]
        })
        #expect(sides == [true, true])
        #expect(await Task { loop.isCurrent }.value == false)
        // Named so `perf`, `top -H` and gdb tell it apart from the pool's threads.
        #expect(await value(of: loop.task { ThreadName.current }) == SocketLoop.threadName)
    }

    @Test func aLoopThatStopsHandsItsTasksOnAndStrandsNone() async throws {
        let loop = try SocketLoop()
        let pair = try SocketPair()
        defer { pair.closeBoth() }
        let task = loop.task {
            // Resumed by the stop: its next jobs can no longer run on the loop's thread.
            var failure: (any Error)?
            do {
                try await loop.wait(for: Int16(POLLIN), on: pair.ends.0, deadline: nil)
            } catch {
                failure = error
            }
            await Task.yield()
            #expect(failure as? SocketError == .closed)
            #expect(!loop.isCurrent)
        }
        // Stopped once the task waits (suspended, so its next job is enqueued by the stop).
        #expect(await registered(1, on: loop))
        loop.stop()
        #expect(await value(of: task) != nil)
    }

    @Test func aWaitPastItsDeadlineEndsTimedOutWhileAnotherWaitsOn() async throws {
        let loop = try SocketLoop()
        defer { loop.stop() }
        let pair = try SocketPair()
        defer { pair.closeBoth() }
        // One waiter without a deadline keeps the thread asleep; the nearer deadline must wake
        // it (within the loop's one-second tick at the latest) and end only its own wait.
        let patient = loop.task { () -> Bool in
            do {
                try await loop.wait(for: Int16(POLLIN), on: pair.ends.0, deadline: nil)
                return true
            } catch {
                return false
            }
        }
        #expect(await registered(1, on: loop))
        await #expect(throws: SocketError.timedOut) {
            try await loop.wait(for: Int16(POLLIN), on: pair.ends.1, deadline: .now + .milliseconds(20))
        }
        var byte: UInt8 = 3
        #expect(send(pair.ends.1, &byte, 1, 0) == 1)
        // Ended by its byte, not by the other wait's deadline.
        #expect(await value(of: patient) == true)
    }
}
