/// Waits for `condition`, looking every 10 ms, at most `limit` (300 s by default) of the
/// machine's live time (``MachineWatch``) or until the calling task is cancelled (a test's hang
/// guard); returns whether it came true. For a state a test must reach when no event announces
/// it (a second waiter joining a download, an operation queued). The bound is a hang guard
/// measured on the clock, never a count of tries: a whole-suite pass on two cores has stood
/// still for 80 s, and a test whose origin cannot finish before the test acts then simply waits
/// longer; and it counts only the time the machine ran, since across a pause of the machine
/// the state cannot come either.
public func waitUntil(limit: Duration = .seconds(300), _ condition: () -> Bool) async -> Bool {
    let watch = MachineWatch.shared
    let giveUp = watch.liveTime + limit
    while watch.liveTime < giveUp, !Task.isCancelled {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
