import DouyinLogging
import DouyinSupport
import Foundation

/// A thread-safe least-recently-used cache in memory, with a total cost limit, a count limit
/// and an optional age limit. Every operation is O(1).
///
/// Unlike `NSCache`, eviction is specified: when a limit is passed, the least recently used
/// entries go first; an entry older than the age limit is a miss. On iOS it empties itself on
/// a memory warning; elsewhere call ``trim(toCost:)`` when the process needs memory back.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The limits of a memory cache.
    public struct Configuration: Sendable, Hashable {
        /// The most total cost held, in the caller's units (bytes for data); 0 means no limit.
        /// 64 MB by default.
        public var costLimit: Int
        /// The most entries held; 0, the default, means no limit.
        public var countLimit: Int
        /// How long an entry stays valid after it is stored; `nil`, the default, means forever.
        public var ageLimit: Duration?
        /// Where the cache tells what its limits made it drop (entries evicted by a store, a
        /// value over the whole cost limit not kept), one event per store that dropped
        /// something. `nil` by default: nothing is logged.
        public var log: LogHandler?

        /// Builds a configuration; negative limits count as 0 (no limit); `log` `nil` by default.
        public init(costLimit: Int = 64 << 20, countLimit: Int = 0, ageLimit: Duration? = nil, log: LogHandler? = nil) {
            self.costLimit = max(0, costLimit)
            self.countLimit = max(0, countLimit)
            self.ageLimit = ageLimit
            self.log = log
        }
    }

    /// The limits this cache keeps.
    public let configuration: Configuration
    /// The most total cost held; 0 means no limit.
    @usableFromInline let costLimit: Int
    /// The most entries held; 0 means no limit.
    @usableFromInline let countLimit: Int
    /// The age limit in seconds, for comparing with the clock's dates.
    @usableFromInline let ageLimit: Double?

    @usableFromInline let clock: CacheClock
    @usableFromInline let list = LockedBox(LRUList<Key, Value>())
    #if os(iOS) || os(tvOS) || os(visionOS)
    /// NotificationCenter's token; `@unchecked Sendable` because it is only handed back to
    /// NotificationCenter (thread-safe), never used otherwise.
    private struct ObserverToken: @unchecked Sendable { let token: any NSObjectProtocol }
    private let warningObserver = LockedBox<ObserverToken?>(nil)
    #endif

    /// Makes an empty cache; by default 64 MB of cost, no count limit, no age limit.
    public init(configuration: Configuration = Configuration(), clock: CacheClock = .system) {
        self.configuration = configuration
        costLimit = configuration.costLimit
        countLimit = configuration.countLimit
        ageLimit = configuration.ageLimit?.inSeconds
        self.clock = clock
        #if os(iOS) || os(tvOS) || os(visionOS)
        // UIApplication.didReceiveMemoryWarningNotification by its raw name: UIKit's constant
        // is main-actor isolated under Swift 6 and this init is not; watchOS has no UIApplication.
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name("UIApplicationDidReceiveMemoryWarningNotification"), object: nil, queue: nil
        ) { [weak self] _ in self?.removeAll() }
        warningObserver.withLock { $0 = ObserverToken(token: observer) }
        #endif
    }

    deinit {
        #if os(iOS) || os(tvOS) || os(visionOS)
        warningObserver.withLock { $0.map { NotificationCenter.default.removeObserver($0.token) } }
        #endif
    }

    /// The value for `key`, marking it most recently used; `nil` when absent or expired.
    @inlinable
    public func value(for key: Key) -> Value? {
        let now = clock.now().timeIntervalSince1970
        return list.withLock { list in
            guard let node = list.touch(key) else { return nil }
            if let ageLimit, now - node.stored >= ageLimit {
                list.remove(key)
                return nil
            }
            return node.value
        }
    }

    /// Stores `value` as the most recently used entry, evicting the least recently used ones
    /// while a limit is passed. A value costing more than the whole cost limit is not kept (and
    /// any older value for `key` is removed); the other entries stay.
    @inlinable
    public func setValue(_ value: Value, for key: Key, cost: Int = 0) {
        if costLimit > 0, cost > costLimit {
            // Stored, it would push out every other entry and then itself. The value it
            // replaces is stale, so that one goes; the rest stay.
            list.withLock { _ = $0.remove(key) }
            logNotKept(key: key, cost: cost)
            return
        }
        let now = clock.now().timeIntervalSince1970
        let dropped = list.withLock { list in
            list.set(value, for: key, cost: max(0, cost), stored: now)
            return evict(&list, maxCost: costLimit > 0 ? costLimit : nil, maxCount: countLimit > 0 ? countLimit : nil)
        }
        // Outside the lock: the handler is the app's code.
        if dropped.count > 0, configuration.log != nil { logDropped(dropped, key: key, cost: cost) }
    }

    /// Removes and returns the value for `key`.
    @inlinable @discardableResult
    public func removeValue(for key: Key) -> Value? {
        list.withLock { $0.remove(key)?.value }
    }

    /// Empties the cache.
    @inlinable
    public func removeAll() {
        list.withLock { $0.removeAll() }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        logDropped(list.withLock { evict(&$0, maxCost: max(0, cost), maxCount: nil) }, key: nil, cost: 0)
    }

    /// Evicts least recently used entries until at most `count` remain.
    public func trim(toCount count: Int) {
        logDropped(list.withLock { evict(&$0, maxCost: nil, maxCount: max(0, count)) }, key: nil, cost: 0)
    }

    /// Removes every entry past the age limit.
    public func removeExpired() {
        guard let ageLimit else { return }
        let now = clock.now().timeIntervalSince1970
        list.withLock { list in
            for key in list.keysOldestFirst where list.peek(key).map({ now - $0.stored >= ageLimit }) == true {
                list.remove(key)
            }
        }
    }

    /// How many entries are held.
    @inlinable
    public var count: Int { list.withLock { $0.count } }
    /// The total cost of the entries held.
    @inlinable
    public var totalCost: Int { list.withLock { $0.totalCost } }
    /// The keys from least to most recently used (O(n); a test hook).
    package var keysByRecency: [Key] { list.withLock { $0.keysOldestFirst } }

    /// Pops the least recently used entries while over a limit; `nil` means no limit. Returns
    /// how many entries went and their total cost.
    @inlinable @discardableResult
    func evict(_ list: inout LRUList<Key, Value>, maxCost: Int?, maxCount: Int?) -> (count: Int, cost: Int) {
        var dropped = (count: 0, cost: 0)
        while let oldest = list.oldestNode,
              list.totalCost > maxCost ?? .max || list.count > maxCount ?? .max {
            dropped.count += 1
            dropped.cost += oldest.cost
            list.remove(oldest.key)
        }
        return dropped
    }

    /// Tells ``Configuration/log`` that a value for `key` costing `cost` was not kept: it is
    /// over the whole cost limit.
    @usableFromInline
    func logNotKept(key: Key, cost: Int) {
        configuration.log?(LogEvent(level: .notice, subsystem: "DouyinCache.MemoryCache", message: "value not kept: over the whole cost limit",
                                    metadata: ["key": "\(key)", "cost": String(cost), "limit": String(costLimit)]))
    }

    /// Tells ``Configuration/log`` what a store of `key` (costing `cost`), or a trim (`key`
    /// `nil`), dropped.
    @usableFromInline
    func logDropped(_ dropped: (count: Int, cost: Int), key: Key?, cost: Int) {
        guard dropped.count > 0, let log = configuration.log else { return }
        let subsystem = "DouyinCache.MemoryCache"
        log(LogEvent(level: .debug, subsystem: subsystem, message: "entries evicted",
                     metadata: ["count": String(dropped.count), "cost": String(dropped.cost), "reason": key == nil ? "trim" : "limit"]))
    }
}
