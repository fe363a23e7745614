import DouyinGift
import Testing

/// A manual-clock harness: sends at millisecond times, the events as `gift-sim` lines.
struct Room {
    var engine: GiftComboEngine

    init(_ configuration: GiftConfiguration = GiftConfiguration()) {
        engine = GiftComboEngine(configuration: configuration)
    }

    mutating func send(_ ms: Int64, _ user: String, _ gift: String, _ count: Int = 1, value: Int = 0, local: Bool = false) -> [String] {
        lines(engine.send(GiftSend(user: user, gift: gift, count: count, value: value, isLocalUser: local), at: .milliseconds(ms)))
    }

    mutating func absolute(_ ms: Int64, _ user: String, _ gift: String, _ total: Int) -> [String] {
        lines(engine.send(GiftSend(key: GiftKey(user: user, gift: gift), count: .absolute(total)), at: .milliseconds(ms)))
    }

    mutating func advance(_ ms: Int64) -> [String] { lines(engine.advance(to: .milliseconds(ms))) }
    mutating func flush() -> [String] { lines(engine.flush()) }

    /// Display lines without the `firstDisplay` companions, which have their own test.
    func lines(_ events: [GiftEvent]) -> [String] { events.filter { $0.kind != .firstDisplay }.map(\.description) }
}

@Suite("Gift rules, on a manual clock")
struct GiftRuleTests {
    @Test func rule1ComboOnScreenGrowsAndRestartsTheTimer() {
        var room = Room()
        #expect(room.send(0, "a", "rose") == ["0 show track=0 key=a:rose count=1"])
        #expect(room.send(2000, "a", "rose", 5) == ["2000 combo track=0 key=a:rose count=6"])
        // Without the restart it would hide at 3000.
        #expect(room.advance(4999) == [])
        #expect(room.advance(5000) == ["5000 hide track=0 key=a:rose total=6"])
    }

    @Test func rule2WaitingUnitAccumulates() {
        var room = Room(GiftConfiguration(tracks: 1))
        _ = room.send(0, "a", "rose")
        #expect(room.send(10, "b", "car") == [])
        #expect(room.send(20, "b", "car", 4) == [])
        #expect(room.engine.waitingCounts == [1])
        #expect(room.advance(3000) == ["3000 hide track=0 key=a:rose total=1", "3000 show track=0 key=b:car count=5"])
    }

    @Test func rule3NewUnitGoesToTheTrackWithFewestUnits() {
        var room = Room(GiftConfiguration(tracks: 3))
        #expect(room.send(0, "a", "g") == ["0 show track=0 key=a:g count=1"])
        #expect(room.send(1, "b", "g") == ["1 show track=1 key=b:g count=1"])
        #expect(room.send(2, "c", "g") == ["2 show track=2 key=c:g count=1"])
        // All tracks hold one: the tie goes to track 0; then tracks 1 and 2 have fewer.
        _ = room.send(3, "d", "g")
        _ = room.send(4, "e", "g")
        _ = room.send(5, "f", "g")
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "d"])
        #expect(room.engine.snapshot(ofTrack: 1).map(\.key.user) == ["b", "e"])
        #expect(room.engine.snapshot(ofTrack: 2).map(\.key.user) == ["c", "f"])
    }

    @Test func rule3CountsWaitingUnitsNotOnlyTheOneOnScreen() {
        var room = Room(GiftConfiguration(tracks: 2))
        _ = room.send(0, "a", "g")   // track 0
        _ = room.send(0, "b", "g")   // track 1
        _ = room.send(0, "c", "g")   // track 0 waits (tie → lowest)
        _ = room.advance(2999)
        // At 3000 a hides (c takes track 0) and b hides too, so b's send is a new unit on the
        // emptier track 1; then both tracks hold one and the tie goes to track 0.
        _ = room.send(3000, "b", "g")
        _ = room.send(3001, "d", "g")
        _ = room.send(3002, "e", "g")
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["c", "d"])
        #expect(room.engine.snapshot(ofTrack: 1).map(\.key.user) == ["b", "e"])
    }

    @Test func rule4ComboCapClosesTheUnitAndStartsANewRun() {
        var room = Room(GiftConfiguration(tracks: 1, maxCombo: 10))
        _ = room.send(0, "a", "rose", 8)
        #expect(room.send(100, "a", "rose", 5) == ["100 combo track=0 key=a:rose count=10"])
        // The 3 that did not fit wait as a new run; a further send accumulates there.
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [10, 3])
        #expect(room.send(200, "a", "rose", 2) == [])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [10, 5])
        #expect(room.flush() == [
            "3100 hide track=0 key=a:rose total=10", "3100 show track=0 key=a:rose count=5",
            "6100 hide track=0 key=a:rose total=5",
        ])
    }

    @Test func rule4SendLargerThanTheCapSplitsIntoRuns() {
        var room = Room(GiftConfiguration(tracks: 2, maxCombo: 10))
        #expect(room.send(0, "a", "rose", 25) == [
            "0 show track=0 key=a:rose count=10", "0 show track=1 key=a:rose count=10",
        ])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [10, 5])
    }

    @Test func rule5HideAfterTheWindowShowsTheNextWaitingUnit() {
        var room = Room(GiftConfiguration(tracks: 1, comboWindow: .milliseconds(500)))
        _ = room.send(0, "a", "g")
        _ = room.send(100, "b", "g")
        _ = room.send(200, "c", "g")
        #expect(room.advance(499) == [])
        #expect(room.advance(1200) == [
            "500 hide track=0 key=a:g total=1", "500 show track=0 key=b:g count=1",
            "1000 hide track=0 key=b:g total=1", "1000 show track=0 key=c:g count=1",
        ])
    }

    @Test func timersAtTheSameTimeFireBeforeTheSend() {
        var room = Room(GiftConfiguration(tracks: 1))
        _ = room.send(0, "a", "g")
        // At exactly 3000 the unit hides first, so this send is a new unit, not a combo.
        #expect(room.send(3000, "a", "g") == ["3000 hide track=0 key=a:g total=1", "3000 show track=0 key=a:g count=1"])
    }

    @Test func rule6FirstDisplayOncePerUnitNeverOnCombos() {
        var engine = GiftComboEngine(configuration: GiftConfiguration(tracks: 1))
        var events = engine.send(GiftSend(user: "a", gift: "g"), at: .zero)
        events += engine.send(GiftSend(user: "b", gift: "g"), at: .milliseconds(10))
        events += engine.send(GiftSend(user: "a", gift: "g", count: 3), at: .milliseconds(20))
        events += engine.send(GiftSend(user: "b", gift: "g"), at: .milliseconds(30))
        events += engine.flush()
        let first = events.filter { $0.kind == .firstDisplay }
        #expect(first.map(\.key.user) == ["a", "b"])
        #expect(first.map(\.count) == [1, 2])
        // Each firstDisplay follows its unit's show directly.
        for (index, event) in events.enumerated() where event.kind == .firstDisplay {
            #expect(events[index - 1].kind == .show && events[index - 1].unit == event.unit)
        }
    }

    @Test func rule7PriorityOvertakesWaitingUnitsNotTheOneOnScreen() {
        var room = Room(GiftConfiguration(tracks: 1, priority: .giftValue))
        _ = room.send(0, "a", "g", value: 1)
        _ = room.send(10, "b", "g", value: 5)
        _ = room.send(20, "c", "g", value: 100)
        _ = room.send(30, "d", "g", value: 5)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "c", "b", "d"])
        #expect(room.advance(3000).last == "3000 show track=0 key=c:g count=1")
    }

    @Test func rule7LocalUserFirst() {
        var room = Room(GiftConfiguration(tracks: 1, priority: .localUserFirst))
        _ = room.send(0, "a", "g")
        _ = room.send(10, "b", "g")
        _ = room.send(20, "me", "g", local: true)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "me", "b"])
    }

    @Test func rule7QueueBoundDropsTheLowestPriorityAndReportsIt() {
        var room = Room(GiftConfiguration(tracks: 1, priority: .giftValue, queueBound: 2))
        _ = room.send(0, "a", "g")
        _ = room.send(10, "b", "g", 3, value: 50)
        _ = room.send(20, "c", "g", 4, value: 10)
        #expect(room.send(30, "d", "g", 2, value: 30) == ["30 dropped key=c:g count=4"])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "b", "d"])
        // A send to a waiting key merges into it instead of overflowing.
        #expect(room.send(40, "d", "g", 5, value: 30) == [])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [1, 3, 7])
    }

    @Test func rule7NewUnitItselfIsDroppedWhenItIsTheLowest() {
        var room = Room(GiftConfiguration(tracks: 1, priority: .giftValue, queueBound: 1))
        _ = room.send(0, "a", "g")
        _ = room.send(10, "b", "g", value: 50)
        #expect(room.send(20, "c", "g", 2, value: 1) == ["20 dropped key=c:g count=2"])
        // c was dropped, so its next send is a fresh unit rather than an accumulation into a ghost.
        #expect(room.send(30, "c", "g", 1, value: 99) == ["30 dropped key=b:g count=1"])
    }

    @Test func rule8LocalUsersGiftsAreNeverDropped() {
        var room = Room(GiftConfiguration(tracks: 1, queueBound: 1))
        _ = room.send(0, "a", "g")
        _ = room.send(10, "me", "g", local: true)
        #expect(room.send(20, "me", "h", local: true) == [])
        #expect(room.send(30, "b", "g") == ["30 dropped key=b:g count=1"])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.description) == ["a:g", "me:g", "me:h"])
    }

    @Test func rule8AbsoluteCountsSetAndIgnoreStaleTotals() {
        var room = Room(GiftConfiguration(tracks: 1))
        #expect(room.absolute(0, "a", "rose", 5) == ["0 show track=0 key=a:rose count=5"])
        #expect(room.absolute(100, "a", "rose", 57) == ["100 combo track=0 key=a:rose count=57"])
        #expect(room.absolute(200, "a", "rose", 40) == [])
        #expect(room.absolute(300, "a", "rose", 57) == [])
        #expect(room.send(400, "a", "rose", 2) == ["400 combo track=0 key=a:rose count=59"])
        // The stale totals did not restart the timer: it hides 3 s after the last real combo.
        #expect(room.advance(3399) == [])
        #expect(room.advance(3400) == ["3400 hide track=0 key=a:rose total=59"])
    }

    @Test func rule8AbsoluteCountOnAWaitingUnit() {
        var room = Room(GiftConfiguration(tracks: 1))
        _ = room.send(0, "a", "g")
        _ = room.send(10, "b", "g", 2)
        _ = room.absolute(20, "b", "g", 9)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [1, 9])
    }

    @Test func invalidCountsAreIgnored() {
        var room = Room()
        #expect(room.send(0, "a", "g", 0) == [])
        #expect(room.send(0, "a", "g", -4) == [])
        #expect(room.flush() == [])
    }

    @Test func timeNeverRunsBackwards() {
        var room = Room(GiftConfiguration(tracks: 1))
        _ = room.send(1000, "a", "g")
        // A late-arriving send stamped earlier is applied at the engine's current time.
        #expect(room.send(500, "a", "g") == ["1000 combo track=0 key=a:g count=2"])
    }
}
