import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CLinux
#endif

/// The loop's thread: on Linux waiting in `epoll_wait` for sockets each wait armed one-shot,
/// elsewhere in `poll(2)` over the set of every waiter; each turn runs the loop's queued jobs,
/// waits, then resumes the waiters whose socket is ready or whose deadline passed.
extension SocketLoop {
    #if os(Linux)
    /// Arms `fd` for one report of `events` (or an error or hang-up); the `errno` of a failed
    /// `epoll_ctl`, 0 on success. `MOD` first: a descriptor stays in the set once added, until
    /// it is closed (the kernel then drops it, and a new socket of that number is added anew).
    func arm(_ fd: Int32, for events: Int16) -> Int32 {
        var event = epoll_event()
        event.events = UInt32(UInt16(bitPattern: events)) | EPOLLONESHOT.rawValue
        event.data.fd = fd
        if epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0 { return 0 }
        guard errno == ENOENT else { return errno }
        return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : errno
    }

    /// The longest the thread sleeps without an event: an idle server turns once a second.
    private static let longestSleep = Duration.seconds(1)

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while runJobs() {
            let (stopped, timeout) = prepareToSleep { state in
                // At least once a second: a wait whose deadline is a second or more away then
                // needs no wake of this thread (a pipe write, a switch, an extra turn: per
                // request of a lone keep-alive client, whose wait is always the nearest).
                let tick = ContinuousClock.now + Self.longestSleep
                return state.nearestDeadline.map { min($0, tick) } ?? tick
            }
            if stopped { continue }
            let count = epoll_wait(epoll, &events, Int32(events.count), timeout)
            state.withLock { $0.sleeping = false }
            if count < 0 {
                if errno != EINTR { failAll(with: .lastError("epoll_wait")) }
                continue
            }
            let now = ContinuousClock.now
            var woken = false
            let resumed = state.withLock { state -> [(Waiter, SocketError?)] in
                var resumed: [(Waiter, SocketError?)] = []
                for event in events[0..<Int(count)] {
                    let fd = event.data.fd
                    if fd == wakeRead {
                        woken = true
                        continue
                    }
                    let reported = Int16(truncatingIfNeeded: event.events)
                    let failed = reported & Int16(POLLERR | POLLHUP) != 0
                    for id in state.waitersOn[fd] ?? [] where failed || (state.waiters[id]?.events ?? 0) & reported != 0 {
                        if let waiter = state.remove(id) { resumed.append((waiter, nil)) }
                    }
                    // A one-shot report disarmed the descriptor: those still waiting (a writer
                    // beside a reader that was resumed) are armed again.
                    let rest = state.events(on: fd)
                    if rest != 0, case let code = arm(fd, for: rest), code != 0 {
                        for id in state.waitersOn[fd] ?? [] {
                            if let waiter = state.remove(id) { resumed.append((waiter, .system(SystemError(call: "epoll_ctl", code: code)))) }
                        }
                    }
                }
                resumed += state.removeExpired(at: now).map { ($0, .timedOut) }
                return resumed
            }
            if woken { drainWakes() }
            for (waiter, error) in resumed {
                if let error { waiter.continuation.resume(throwing: error) } else { waiter.continuation.resume() }
            }
        }
    }
    #else
    func run() {
        while runJobs() {
            var snapshot: [(Int, Int32, Int16, ContinuousClock.Instant?)] = []
            let (stopped, timeout) = prepareToSleep { state in
                snapshot = state.waiters.map { ($0.key, $0.value.fd, $0.value.events, $0.value.deadline) }
                return state.nearestDeadline
            }
            if stopped { continue }
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            descriptors += snapshot.map { pollfd(fd: $0.1, events: $0.2, revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            state.withLock { $0.sleeping = false }
            if ready < 0, errno != EINTR {
                failAll(with: .lastError("poll"))
                continue
            }
            drainWakes()
            let after = ContinuousClock.now
            let resumed = state.withLock { state -> [(Waiter, SocketError?)] in
                var resumed: [(Waiter, SocketError?)] = []
                for (index, entry) in snapshot.enumerated() where descriptors[index + 1].revents != 0 {
                    if let waiter = state.remove(entry.0) { resumed.append((waiter, nil)) }
                }
                resumed += state.removeExpired(at: after).map { ($0, .timedOut) }
                return resumed
            }
            for (waiter, error) in resumed {
                if let error { waiter.continuation.resume(throwing: error) } else { waiter.continuation.resume() }
            }
        }
    }
    #endif
}
