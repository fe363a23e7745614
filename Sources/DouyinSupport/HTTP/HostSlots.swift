/// At most `limit` items running per host at once; the rest wait in the order they came.
///
/// ``CurlDriver`` keeps its per-host limit with this instead of libcurl's
/// `CURLMOPT_MAX_HOST_CONNECTIONS`: Debian's libcurl 7.88 can move a transfer out of its own
/// connection queue inside `curl_multi_perform` and drop the timer that should run it, so the
/// transfer sat until the next unrelated wake-up (a minute, in a test of twelve at once). A
/// transfer handed to libcurl only once a slot is free never waits in that queue. Pure:
/// the driver's thread owns one.
package struct HostSlots<Item: AnyObject> {
    /// The most items running per host; 0 or less for no limit.
    package let limit: Int
    private var running: [String: Int] = [:]
    private var waiting: [String: [Item]] = [:]

    /// Slots for `limit` items per host (0 or less: every item runs at once).
    package init(limit: Int) {
        self.limit = limit
    }

    /// Whether `item` for `host` may run now (it then holds a slot); otherwise it waits
    /// behind the others for that host.
    package mutating func admit(_ item: Item, host: String) -> Bool {
        guard limit > 0 else { return true }
        if running[host, default: 0] < limit {
            running[host, default: 0] += 1
            return true
        }
        waiting[host, default: []].append(item)
        return false
    }

    /// A running item for `host` ended: the item that takes its slot, if one waits.
    package mutating func release(host: String) -> Item? {
        guard limit > 0 else { return nil }
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            return next  // the slot passes to it
        }
        let count = running[host, default: 0] - 1
        running[host] = count > 0 ? count : nil
        return nil
    }

    /// Takes a waiting `item` out of the queue (cancelled, or idle too long); `false` when it
    /// was not waiting.
    package mutating func withdraw(_ item: Item, host: String) -> Bool {
        guard var queue = waiting[host], let index = queue.firstIndex(where: { $0 === item }) else { return false }
        queue.remove(at: index)
        waiting[host] = queue.isEmpty ? nil : queue
        return true
    }

    /// Every waiting item, hosts in no particular order.
    package var waitingItems: [Item] { waiting.values.flatMap { $0 } }

    /// Items running for `host`.
    package func runningCount(host: String) -> Int { running[host, default: 0] }
}
