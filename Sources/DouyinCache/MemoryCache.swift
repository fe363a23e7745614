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

        /// Builds a configuration; negative limits count as 0 (no limit).
        public init(costLimit: Int = 64 << 20, countLimit: Int = 0, ageLimit: Duration? = nil) {
            self.costLimit = max(0, costLimit)
            self.countLimit = max(0, countLimit)
            self.ageLimit = ageLimit
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
    /// while a limit is passed. A value costing more than the whole cost limit is not kept.
    @inlinable
    public func setValue(_ value: Value, for key: Key, cost: Int = 0) {
        let now = clock.now().timeIntervalSince1970
        list.withLock { list in
            list.set(value, for: key, cost: max(0, cost), stored: now)
            evict(&list, maxCost: costLimit > 0 ? costLimit : nil, maxCount: countLimit > 0 ? countLimit : nil)
        }
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
        list.withLock { evict(&$0, maxCost: max(0, cost), maxCount: nil) }
    }

    /// Evicts least recently used entries until at most `count` remain.
    public func trim(toCount count: Int) {
        list.withLock { evict(&$0, maxCost: nil, maxCount: max(0, count)) }
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

    /// Pops the least recently used entries while over a limit; `nil` means no limit.
    @inlinable
    func evict(_ list: inout LRUList<Key, Value>, maxCost: Int?, maxCount: Int?) {
        while let oldest = list.oldestNode,
              list.totalCost > maxCost ?? .max || list.count > maxCount ?? .max {
            list.remove(oldest.key)
        }
    }
}
