import DouyinSupport

/// The one token of a client and its single-flight fetches: holds ``TokenState`` and the calls
/// waiting for a fetch, and runs ``Authentication/token`` or ``Authentication/refresh`` in a
/// task of its own (a waiting caller's cancellation ends only that caller's wait).
///
/// Its own type rather than DouyinSupport's shared call: a refresh depends on which token was
/// rejected and must refuse a late 401 for a token whose refresh already failed, which a plain
/// shared call does not know about.
///
/// - Important: Safe from any thread; continuations are resumed after the lock is released.
final class TokenRefresher: Sendable {
    let authentication: Authentication
    private let box = LockedBox(Box())

    private struct Box {
        var state = TokenState()
        var waiters: [Int: CheckedContinuation<String, any Error>] = [:]
        /// Calls that asked and have not been answered or joined the waiters yet.
        var pending: Set<Int> = []
        var cancelledEarly: Set<Int> = []
        var nextID = 0
        /// Tests waiting for this many calls to wait for a refresh.
        var watchers: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// How many calls wait for a refresh (0 while none runs, or a first token is fetched).
        var refreshWaiters: Int {
            guard case .fetching(.some) = state.phase else { return 0 }
            return waiters.count
        }

        /// The watchers whose count the refresh's waiters reached, removed.
        mutating func reachedWatchers() -> [CheckedContinuation<Void, Never>] {
            let waiting = refreshWaiters
            let reached = watchers.filter { $0.count <= waiting }.map(\.continuation)
            watchers.removeAll { $0.count <= waiting }
            return reached
        }
    }

    init(_ authentication: Authentication) {
        self.authentication = authentication
    }

    /// The state, for statistics and tests.
    var state: TokenState { box.withLock { $0.state } }

    /// The token to send: the current one, the first one (fetched now), or the one replacing
    /// `rejected` (refreshed now, or already) when the server answered 401 to it.
    ///
    /// - Throws: ``TokenState/Failure`` when the fetch this call waited for failed;
    ///   `CancellationError` when the calling task is cancelled (the fetch goes on).
    func token(rejected: String?) async throws -> String {
        let id = box.withLock { box in
            box.nextID += 1
            box.pending.insert(box.nextID)
            return box.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                let (need, reached) = box.withLock { box -> (TokenState.Need?, [CheckedContinuation<Void, Never>]) in
                    box.pending.remove(id)
                    if box.cancelledEarly.remove(id) != nil { return (nil, []) }
                    let need = box.state.need(rejected: rejected)
                    switch need {
                    case .wait, .fetch: box.waiters[id] = continuation
                    case .use, .fail: break
                    }
                    return (need, box.reachedWatchers())
                }
                for watcher in reached { watcher.resume() }
                switch need {
                case nil: continuation.resume(throwing: CancellationError())
                case .use(let token): continuation.resume(returning: token)
                case .fail(let reason): continuation.resume(throwing: TokenState.Failure(reason: reason))
                case .wait: break
                case .fetch(let rejected): startFetch(rejected: rejected)
                }
            }
        } onCancel: {
            let leaving = box.withLock { box -> CheckedContinuation<String, any Error>? in
                if box.pending.contains(id) { box.cancelledEarly.insert(id) }
                return box.waiters.removeValue(forKey: id)
            }
            leaving?.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` calls wait for one refresh together (a test forcing calls
    /// to pile up behind a held refresh), or when the calling task is cancelled (a test's time
    /// limit, when a broken client never lets calls wait).
    func waitForRefreshWaiters(_ count: Int) async {
        let id = box.withLock { box in
            box.nextID += 1
            return box.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let reached = box.withLock { box -> Bool in
                    guard box.refreshWaiters < count, !box.cancelledEarly.contains(id) else { return true }
                    box.watchers.append((id, count, continuation))
                    return false
                }
                if reached { continuation.resume() }
            }
        } onCancel: {
            let watcher = box.withLock { box -> CheckedContinuation<Void, Never>? in
                guard let index = box.watchers.firstIndex(where: { $0.id == id }) else {
                    box.cancelledEarly.insert(id)
                    return nil
                }
                return box.watchers.remove(at: index).continuation
            }
            watcher?.resume()
        }
        box.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Whether `token` is still the one to send (no refresh replacing it has started).
    func isCurrent(_ token: String) -> Bool {
        box.withLock { $0.state.isCurrent(token) }
    }

    private func startFetch(rejected: String?) {
        let authentication = authentication
        // Its own task: no waiting caller's cancellation reaches the provider.
        Task {
            let result: Result<String, TokenState.Failure>
            do {
                if let rejected {
                    result = .success(try await authentication.refresh(rejected))
                } else {
                    result = .success(try await authentication.token())
                }
            } catch {
                result = .failure(TokenState.Failure(reason: "\(error)"))
            }
            let woken = box.withLock { box -> [CheckedContinuation<String, any Error>] in
                box.state.fetched(result)
                defer { box.waiters = [:] }
                return Array(box.waiters.values)
            }
            for continuation in woken { continuation.resume(with: result.mapError { $0 as any Error }) }
        }
    }
}
