#if canImport(CCurl)
import CCurl
import Foundation

/// The one thread of a ``CurlTransport``: owns the multi handle and every easy handle attached
/// to it; other threads only queue commands and wake it.
///
/// - Important: Everything but ``submit(_:)``, ``shutDown()`` and ``statistics`` runs on the
///   driver's thread. Callbacks into transfers happen there too, outside the command lock.
package final class CurlDriver: @unchecked Sendable {
    // @unchecked Sendable: `multi` is used by the driver's thread only, except
    // `curl_multi_wakeup`, which libcurl makes safe from any thread, and which is called under
    // `commands`' lock so it never races the handle's cleanup. `attached`, `slots` and
    // `readersToWake` are the thread's own.

    /// Counters since the driver started.
    package struct Statistics: Sendable, Hashable {
        /// Transfers started.
        package var transfers = 0
        /// Pauses: a reader's buffer held its limit (the reader fell behind, or one round of
        /// reads brought more than the limit while it waited to be woken).
        package var pauses = 0
        /// New connections libcurl opened (one per transfer that could not reuse one).
        package var connectionsOpened = 0
    }

    /// What another thread asks of the driver.
    enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
        case resume(CurlTransfer)
    }

    private struct Commands {
        var queue: [Command] = []
        var closing = false
        var closed = false
        var statistics = Statistics()
    }

    private let multi: UnsafeMutableRawPointer
    private let commands = LockedBox(Commands())
    private var attached: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// The per-host limit, kept here rather than by libcurl (see ``HostSlots``).
    private var slots: HostSlots<CurlTransfer>
    /// Transfers whose readers get this round's bytes once the round is done (``wakeAfterRound(_:)``).
    private var readersToWake: [CurlTransfer] = []

    init(maximumConnectionsPerHost: Int) {
        CurlGlobal.initialize()
        multi = curl_multi_init()
        slots = HostSlots(limit: maximumConnectionsPerHost)
        let thread = Thread { [self] in run() }
        thread.name = "DouyinSupport.CurlTransport"
        thread.start()
    }

    /// Counters so far.
    package var statistics: Statistics { commands.withLock { $0.statistics } }

    /// Queues `command` and wakes the thread; returns at once. After shutdown a command is
    /// dropped (the transfers have been ended already).
    func submit(_ command: Command) {
        let accepted = commands.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.queue.append(command)
            _ = curl_multi_wakeup(multi)
            return true
        }
        if !accepted, case .add(let transfer) = command {
            transfer.ended(with: .failure(CancellationError()))
        }
    }

    /// Ends every transfer (with `CancellationError`) and the thread; returns at once.
    func shutDown() {
        commands.withLock { state in
            state.closing = true
            _ = curl_multi_wakeup(multi)
        }
    }

    func count(_ change: (inout Statistics) -> Void) {
        commands.withLock { change(&$0.statistics) }
    }

    // MARK: The thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (queue, closing) = commands.withLock { state -> ([Command], Bool) in
                defer { state.queue = [] }
                return (state.queue, state.closing)
            }
            for command in queue { perform(command) }
            if closing {
                // The waiting first, so no transfer ending below hands its slot to one of them.
                for transfer in slots.waitingItems { withdraw(transfer, result: .failure(CancellationError())) }
                for transfer in Array(attached.values) { detach(transfer, result: .failure(CancellationError())) }
                break
            }
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            let now = ContinuousClock.now
            expireIdle(now)
            wakeReaders()
            _ = curl_multi_poll(multi, nil, 0, pollTimeout(now), nil)
        }
        let orphans = commands.withLock { state -> [CurlTransfer] in
            state.closed = true
            // Commands queued meanwhile: adds are told (after unlocking: the end resumes the
            // caller, whose cancel handler submits, taking this lock), the rest are moot.
            var adds: [CurlTransfer] = []
            for case .add(let transfer) in state.queue { adds.append(transfer) }
            state.queue = []
            curl_multi_cleanup(multi)
            return adds
        }
        for transfer in orphans { transfer.ended(with: .failure(CancellationError())) }
    }

    private func perform(_ command: Command) {
        switch command {
        case .add(let transfer):
            guard !transfer.isCancelled else {
                transfer.ended(with: .failure(CancellationError()))
                return
            }
            transfer.submittedAt(.now)
            if slots.admit(transfer, host: transfer.host) { attach(transfer) }
        case .cancel(let transfer):
            if attached[transfer.easy] === transfer {
                detach(transfer, result: .failure(CancellationError()))
            } else {
                withdraw(transfer, result: .failure(CancellationError()))
            }
        case .resume(let transfer):
            guard attached[transfer.easy] === transfer, transfer.isPaused else { return }
            transfer.resumed(at: .now)
            // May call the write callback at once with the bytes held since the pause.
            _ = curl_easy_pause(transfer.easy, CURLPAUSE_CONT)
        }
    }

    /// Wakes `transfer`'s reader once this round of reads is done (called from the transfer's
    /// write callback, on this thread, at most once a round per transfer).
    func wakeAfterRound(_ transfer: CurlTransfer) {
        readersToWake.append(transfer)
    }

    /// The end of a round: every reader that was offered bytes in it without being woken gets them.
    private func wakeReaders() {
        let transfers = readersToWake
        readersToWake = []
        for transfer in transfers { transfer.wakeReader() }
    }

    /// Puts a transfer that holds a slot on the multi handle; one cancelled or past its
    /// deadline meanwhile ends instead and passes the slot on.
    private func attach(_ first: CurlTransfer) {
        var next: CurlTransfer? = first
        while let transfer = next {
            next = nil
            if transfer.isCancelled {
                transfer.ended(with: .failure(CancellationError()))
            } else if !transfer.attachedAt(.now) {
                transfer.ended(with: .failure(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: Self.deadlinePassed])))
            } else {
                attached[transfer.easy] = transfer
                count { $0.transfers += 1 }
                _ = curl_multi_add_handle(multi, transfer.easy)
                continue
            }
            next = slots.release(host: transfer.host)
        }
    }

    /// Takes a transfer off the multi handle, frees its easy handle, reports its end and
    /// hands its slot to the next transfer waiting for the host.
    private func detach(_ transfer: CurlTransfer, result: Result<Void, any Error>) {
        attached[transfer.easy] = nil
        _ = curl_multi_remove_handle(multi, transfer.easy)
        var connects = 0
        _ = douyin_curl_get_long(transfer.easy, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 { count { $0.connectionsOpened += connects } }
        transfer.ended(with: result)
        if let next = slots.release(host: transfer.host) { attach(next) }
    }

    private static let deadlinePassed = "deadline passed waiting for a connection"

    /// Ends a transfer still waiting for a slot (nothing when it is not waiting).
    private func withdraw(_ transfer: CurlTransfer, result: Result<Void, any Error>) {
        if slots.withdraw(transfer, host: transfer.host) { transfer.ended(with: result) }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = attached[easy] else { continue }
            let code = message.pointee.data.result
            detach(transfer, result: code == CURLE_OK ? .success(()) : .failure(transfer.error(for: code)))
        }
    }

    /// Fails the transfers that waited longer than their idle limit for a byte (a paused
    /// transfer waits for its reader, not the network, and is never idle), and those whose
    /// deadline passed while they waited for a slot (libcurl keeps the deadline of the rest).
    private func expireIdle(_ now: ContinuousClock.Instant) {
        func idle(_ transfer: CurlTransfer) -> Result<Void, any Error> {
            .failure(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "no byte for \(transfer.idleTimeout)"]))
        }
        for transfer in slots.waitingItems {
            if let deadline = transfer.deadline, deadline <= now {
                withdraw(transfer, result: .failure(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: Self.deadlinePassed])))
            } else if let expiry = transfer.idleExpiry, expiry <= now {
                withdraw(transfer, result: idle(transfer))
            }
        }
        for transfer in attached.values {
            if let expiry = transfer.idleExpiry, expiry <= now { detach(transfer, result: idle(transfer)) }
        }
    }

    /// Milliseconds until the nearest idle expiry (libcurl shortens the wait for its own
    /// timers); an hour when nothing is waiting, since a command wakes the thread anyway.
    private func pollTimeout(_ now: ContinuousClock.Instant) -> Int32 {
        let nearest = (attached.values.compactMap(\.idleExpiry) + slots.waitingItems.flatMap { [$0.idleExpiry, $0.deadline] }.compactMap { $0 }).min()
        guard let nearest else { return 3_600_000 }
        let milliseconds = now.duration(to: nearest).components
        let total = milliseconds.seconds * 1000 + milliseconds.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(clamping: max(0, total))
    }
}

/// `curl_global_init`, once for the process. Debian's libcurl is built thread-safe (its
/// `curl_global_init` may race FoundationNetworking's own call, which only counts up).
enum CurlGlobal {
    private static let once: Void = {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    static func initialize() {
        _ = once
    }
}
#endif
