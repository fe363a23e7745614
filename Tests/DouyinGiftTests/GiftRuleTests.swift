import DouyinGift
import Testing

/// A manual-clock harness: sends at millisecond times, the events as `gift-sim` lines.
struct Room {
    var engine: GiftComboEngine

    init(_ configuration: GiftComboEngine.Configuration = GiftComboEngine.Configuration()) throws {
        engine = try GiftComboEngine(configuration: configuration)
    }

    mutating func send(_ ms: Int64, _ user: String, _ gift: String, _ count: Int = 1, value: Int = 0, local: Bool = false) throws -> [String] {
        lines(try engine.send(GiftSend(user: user, gift: gift, count: count, value: value, isLocalUser: local), at: .milliseconds(ms)))
    }

    mutating func absolute(_ ms: Int64, _ user: String, _ gift: String, _ total: Int) throws -> [String] {
        lines(try engine.send(GiftSend(key: GiftKey(user: user, gift: gift), count: .absolute(total)), at: .milliseconds(ms)))
    }

    mutating func advance(_ ms: Int64) throws -> [String] { lines(try engine.advance(to: .milliseconds(ms))) }
    mutating func flush() -> [String] { lines(engine.flush()) }

    /// Display lines without the `firstDisplay` companions, which have their own test.
    func lines(_ events: [GiftEvent]) -> [String] { events.filter { $0.kind != .firstDisplay }.map(\.description) }
}

@Suite("Gift rules, on a manual clock")
struct GiftRuleTests {
    @Test func rule1ComboOnScreenGrowsAndRestartsTheTimer() throws {
        var room = try Room()
        #expect(try room.send(0, "a", "rose") == ["0 show track=0 key=a:rose count=1"])
        #expect(try room.send(2000, "a", "rose", 5) == ["2000 combo track=0 key=a:rose count=6"])
        // Without the restart it would hide at 3000.
        #expect(try room.advance(4999) == [])
        #expect(try room.advance(5000) == ["5000 hide track=0 key=a:rose total=6"])
    }

    @Test func rule2WaitingUnitAccumulates() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1))
        _ = try room.send(0, "a", "rose")
        #expect(try room.send(10, "b", "car") == [])
        #expect(try room.send(20, "b", "car", 4) == [])
        #expect(room.engine.waitingCounts == [1])
        #expect(try room.advance(3000) == ["3000 hide track=0 key=a:rose total=1", "3000 show track=0 key=b:car count=5"])
    }

    @Test func rule3NewUnitGoesToTheTrackWithFewestUnits() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 3))
        #expect(try room.send(0, "a", "g") == ["0 show track=0 key=a:g count=1"])
        #expect(try room.send(1, "b", "g") == ["1 show track=1 key=b:g count=1"])
        #expect(try room.send(2, "c", "g") == ["2 show track=2 key=c:g count=1"])
        // All tracks hold one: the tie goes to track 0; then tracks 1 and 2 have fewer.
        _ = try room.send(3, "d", "g")
        _ = try room.send(4, "e", "g")
        _ = try room.send(5, "f", "g")
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "d"])
        #expect(room.engine.snapshot(ofTrack: 1).map(\.key.user) == ["b", "e"])
        #expect(room.engine.snapshot(ofTrack: 2).map(\.key.user) == ["c", "f"])
    }

    @Test func rule3CountsWaitingUnitsNotOnlyTheOneOnScreen() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 2))
        _ = try room.send(0, "a", "g")   // track 0
        _ = try room.send(0, "b", "g")   // track 1
        _ = try room.send(0, "c", "g")   // track 0 waits (tie → lowest)
        _ = try room.advance(2999)
        // At 3000 a hides (c takes track 0) and b hides too, so b's send is a new unit on the
        // emptier track 1; then both tracks hold one and the tie goes to track 0.
        _ = try room.send(3000, "b", "g")
        _ = try room.send(3001, "d", "g")
        _ = try room.send(3002, "e", "g")
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["c", "d"])
        #expect(room.engine.snapshot(ofTrack: 1).map(\.key.user) == ["b", "e"])
    }

    @Test func rule4ComboCapClosesTheUnitAndStartsANewRun() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, maxCombo: 10))
        _ = try room.send(0, "a", "rose", 8)
        // The send that passes the cap stays whole in the unit (13, not 10 + 3), which closes.
        #expect(try room.send(100, "a", "rose", 5) == ["100 combo track=0 key=a:rose count=13"])
        #expect(room.engine.openCount(of: GiftKey(user: "a", gift: "rose")) == nil)
        // A later send of that key starts a new run, which waits; a further send accumulates there.
        #expect(try room.send(150, "a", "rose", 1) == [])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [13, 1])
        #expect(try room.send(200, "a", "rose", 2) == [])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [13, 3])
        #expect(room.flush() == [
            "3100 hide track=0 key=a:rose total=13", "3100 show track=0 key=a:rose count=3",
            "6100 hide track=0 key=a:rose total=3",
        ])
    }

    @Test func aSingleSendIsNeverSplitAtTheCap() throws {
        // Case 11: one send of 10 with a cap of 5 was two units of 5 shown on both tracks at once.
        var room = try Room(GiftComboEngine.Configuration(tracks: 2, maxCombo: 5))
        #expect(try room.send(0, "a", "rose", 10) == ["0 show track=0 key=a:rose count=10"])
        #expect(room.engine.snapshot(ofTrack: 1).isEmpty)
        // The unit closed at once: the next send of the key is a new run on the emptier track.
        #expect(try room.send(10, "a", "rose", 1) == ["10 show track=1 key=a:rose count=1"])
        // 105 from 95 under the default cap: one combo of 10 on the unit, which then closes.
        var room99 = try Room()
        _ = try room99.send(0, "b", "car", 95)
        #expect(try room99.send(100, "b", "car", 10) == ["100 combo track=0 key=b:car count=105"])
        #expect(room99.engine.openCount(of: GiftKey(user: "b", gift: "car")) == nil)
        // A batch of 1314 is one banner, not 14.
        #expect(try room99.send(200, "c", "heart", 1314) == ["200 show track=1 key=c:heart count=1314"])
        #expect(room99.flush() == [
            "3100 hide track=0 key=b:car total=105", "3200 hide track=1 key=c:heart total=1314",
        ])
    }

    @Test func anAbsoluteTotalPastTheCapStaysInItsUnit() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, maxCombo: 10))
        _ = try room.absolute(0, "a", "rose", 4)
        #expect(try room.absolute(100, "a", "rose", 25) == ["100 combo track=0 key=a:rose count=25"])
        // Closed: the server's next total counts from a fresh run.
        _ = try room.absolute(200, "a", "rose", 3)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [25, 3])
    }

    @Test func rule5HideAfterTheWindowShowsTheNextWaitingUnit() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, comboWindow: .milliseconds(500)))
        _ = try room.send(0, "a", "g")
        _ = try room.send(100, "b", "g")
        _ = try room.send(200, "c", "g")
        #expect(try room.advance(499) == [])
        #expect(try room.advance(1200) == [
            "500 hide track=0 key=a:g total=1", "500 show track=0 key=b:g count=1",
            "1000 hide track=0 key=b:g total=1", "1000 show track=0 key=c:g count=1",
        ])
    }

    @Test func timersAtTheSameTimeFireBeforeTheSend() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1))
        _ = try room.send(0, "a", "g")
        // At exactly 3000 the unit hides first, so this send is a new unit, not a combo.
        #expect(try room.send(3000, "a", "g") == ["3000 hide track=0 key=a:g total=1", "3000 show track=0 key=a:g count=1"])
    }

    @Test func rule6FirstDisplayOncePerUnitNeverOnCombos() throws {
        var engine = try GiftComboEngine(configuration: GiftComboEngine.Configuration(tracks: 1))
        var events = try engine.send(GiftSend(user: "a", gift: "g"), at: .zero)
        events += try engine.send(GiftSend(user: "b", gift: "g"), at: .milliseconds(10))
        events += try engine.send(GiftSend(user: "a", gift: "g", count: 3), at: .milliseconds(20))
        events += try engine.send(GiftSend(user: "b", gift: "g"), at: .milliseconds(30))
        events += engine.flush()
        let first = events.filter { $0.kind == .firstDisplay }
        #expect(first.map(\.key.user) == ["a", "b"])
        #expect(first.map(\.count) == [1, 2])
        // Each firstDisplay follows its unit's show directly.
        for (index, event) in events.enumerated() where event.kind == .firstDisplay {
            #expect(events[index - 1].kind == .show && events[index - 1].unit == event.unit)
        }
    }

    @Test func rule7PriorityOvertakesWaitingUnitsNotTheOneOnScreen() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, priority: .giftValue))
        _ = try room.send(0, "a", "g", value: 1)
        _ = try room.send(10, "b", "g", value: 5)
        _ = try room.send(20, "c", "g", value: 100)
        _ = try room.send(30, "d", "g", value: 5)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "c", "b", "d"])
        #expect(try room.advance(3000).last == "3000 show track=0 key=c:g count=1")
    }

    @Test func rule7LocalUserFirst() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, priority: .localUserFirst))
        _ = try room.send(0, "a", "g")
        _ = try room.send(10, "b", "g")
        _ = try room.send(20, "me", "g", local: true)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "me", "b"])
    }

    @Test func rule7QueueBoundDropsTheLowestPriorityAndReportsIt() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, priority: .giftValue, queueBound: 2))
        _ = try room.send(0, "a", "g")
        _ = try room.send(10, "b", "g", 3, value: 50)
        _ = try room.send(20, "c", "g", 4, value: 10)
        #expect(try room.send(30, "d", "g", 2, value: 30) == ["30 dropped key=c:g count=4"])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.user) == ["a", "b", "d"])
        // A send to a waiting key merges into it instead of overflowing.
        #expect(try room.send(40, "d", "g", 5, value: 30) == [])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [1, 3, 7])
    }

    @Test func rule7NewUnitItselfIsDroppedWhenItIsTheLowest() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, priority: .giftValue, queueBound: 1))
        _ = try room.send(0, "a", "g")
        _ = try room.send(10, "b", "g", value: 50)
        #expect(try room.send(20, "c", "g", 2, value: 1) == ["20 dropped key=c:g count=2"])
        // c was dropped, so its next send is a fresh unit rather than an accumulation into a ghost.
        #expect(try room.send(30, "c", "g", 1, value: 99) == ["30 dropped key=b:g count=1"])
    }

    @Test func rule8LocalUsersGiftsAreNeverDropped() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1, queueBound: 1))
        _ = try room.send(0, "a", "g")
        _ = try room.send(10, "me", "g", local: true)
        #expect(try room.send(20, "me", "h", local: true) == [])
        #expect(try room.send(30, "b", "g") == ["30 dropped key=b:g count=1"])
        #expect(room.engine.snapshot(ofTrack: 0).map(\.key.description) == ["a:g", "me:g", "me:h"])
    }

    @Test func rule8AbsoluteCountsSetAndIgnoreStaleTotals() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1))
        #expect(try room.absolute(0, "a", "rose", 5) == ["0 show track=0 key=a:rose count=5"])
        #expect(try room.absolute(100, "a", "rose", 57) == ["100 combo track=0 key=a:rose count=57"])
        #expect(try room.absolute(200, "a", "rose", 40) == [])
        #expect(try room.absolute(300, "a", "rose", 57) == [])
        #expect(try room.send(400, "a", "rose", 2) == ["400 combo track=0 key=a:rose count=59"])
        // The stale totals did not restart the timer: it hides 3 s after the last real combo.
        #expect(try room.advance(3399) == [])
        #expect(try room.advance(3400) == ["3400 hide track=0 key=a:rose total=59"])
    }

    @Test func rule8AbsoluteCountOnAWaitingUnit() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1))
        _ = try room.send(0, "a", "g")
        _ = try room.send(10, "b", "g", 2)
        _ = try room.absolute(20, "b", "g", 9)
        #expect(room.engine.snapshot(ofTrack: 0).map(\.count) == [1, 9])
    }

    @Test func invalidCountsAreIgnored() throws {
        var room = try Room()
        #expect(try room.send(0, "a", "g", 0) == [])
        #expect(try room.send(0, "a", "g", -4) == [])
        #expect(room.flush() == [])
    }

    /// A lying server's running total of Int.min for a key with an open unit trapped
    /// (`Int.min - 1` overflowed) and, through the runner, killed the app under its lock.
    @Test func aNegativeAbsoluteTotalIsStaleNotATrap() throws {
        var room = try Room()
        _ = try room.send(0, "u", "g")
        #expect(try room.absolute(10, "u", "g", .min) == [])
        #expect(try room.absolute(20, "u", "g", -5) == [])
        #expect(try room.send(30, "u", "g") == ["30 combo track=0 key=u:g count=2"])
    }

    @Test func timeNeverRunsBackwards() throws {
        var room = try Room(GiftComboEngine.Configuration(tracks: 1))
        _ = try room.send(1000, "a", "g")
        // A late-arriving send stamped earlier is applied at the engine's current time.
        #expect(try room.send(500, "a", "g") == ["1000 combo track=0 key=a:g count=2"])
    }

    // MARK: - Case 10: values the engine cannot represent are refused, never trapped on

    @Test func hugeCountsAndTimesAreRefusedWithTypedErrors() throws {
        var engine = try GiftComboEngine(configuration: GiftComboEngine.Configuration(tracks: 1))
        let key = GiftKey(user: "a", gift: "g")
        // 2^62 hung and grew past 1.5 GB when split into units of 99.
        #expect(throws: GiftError.countOutOfRange(.increment(1 << 62), key: key)) {
            try engine.send(GiftSend(key: key, count: .increment(1 << 62)), at: .zero)
        }
        #expect(throws: GiftError.countOutOfRange(.absolute(.max), key: key)) {
            try engine.send(GiftSend(key: key, count: .absolute(.max)), at: .zero)
        }
        #expect(throws: GiftError.valueOutOfRange(.min, key: key)) {
            try engine.send(GiftSend(key: key, count: .increment(1), value: .min), at: .zero)
        }
        // 2^63−1 ms trapped converting a Double back to Int64.
        #expect(throws: GiftError.timeOutOfRange(.milliseconds(Int64.max))) {
            try engine.send(GiftSend(key: key, count: .increment(1)), at: .milliseconds(Int64.max))
        }
        #expect(throws: GiftError.timeOutOfRange(GiftComboEngine.maximumTime + .nanoseconds(1))) {
            try engine.advance(to: GiftComboEngine.maximumTime + .nanoseconds(1))
        }
        // Nothing changed: no unit, no clock movement.
        #expect(engine.now == .zero && engine.snapshot(ofTrack: 0).isEmpty)
        // The edges themselves are taken.
        let most = GiftSend.maximumCount
        #expect(try engine.send(GiftSend(key: key, count: .increment(most), value: -most), at: GiftComboEngine.maximumTime).map(\.count) == [most, most])
    }

    @Test func theLargestUnitAndTheLatestDeadlinePrintExactly() throws {
        // Times above 2^53 ms printed rounded through a Double; every time is now exact.
        let most = GiftSend.maximumCount
        var engine = try GiftComboEngine(configuration: GiftComboEngine.Configuration(
            tracks: 1, comboWindow: GiftComboEngine.maximumTime, maxCombo: most
        ))
        let key = GiftKey(user: "a", gift: "g")
        let last = GiftComboEngine.maximumTime - .milliseconds(1)
        _ = try engine.send(GiftSend(key: key, count: .increment(most - 1)), at: .zero)
        let combo = try engine.send(GiftSend(key: key, count: .increment(most)), at: last)
        #expect(combo.map(\.description) == ["9007199254740991 combo track=0 key=a:g count=\(2 * most - 1)"])
        #expect(engine.flush().map(\.description) == ["18014398509481983 hide track=0 key=a:g total=\(2 * most - 1)"])
        #expect(GiftEvent(kind: .hide, time: .milliseconds(Int64.max), track: 0, key: key, count: 1, unit: 0).description
            == "9223372036854775807 hide track=0 key=a:g total=1")
        #expect(GiftEvent(kind: .show, time: .microseconds(1_500), track: 0, key: key, count: 1, unit: 0).description
            == "1.5 show track=0 key=a:g count=1")
        #expect(GiftEvent(kind: .show, time: .nanoseconds(1_000_000_001), track: 0, key: key, count: 1, unit: 0).description
            == "1000.000001 show track=0 key=a:g count=1")
    }

    @Test func configurationOutsideItsRangesIsRefused() {
        let cases: [(GiftComboEngine.Configuration, String)] = [
            (.init(tracks: 0), "tracks"),
            (.init(tracks: 1_000_000_000_000), "tracks"),
            (.init(comboWindow: .milliseconds(Int64.max)), "comboWindow"),
            (.init(comboWindow: .milliseconds(-1)), "comboWindow"),
            (.init(maxCombo: 0), "maxCombo"),
            (.init(maxCombo: .max), "maxCombo"),
            (.init(queueBound: -1), "queueBound"),
        ]
        for (configuration, field) in cases {
            #expect {
                _ = try GiftComboEngine(configuration: configuration)
            } throws: { error in
                guard case .configurationOutOfRange(let named, _, _) = error as? GiftError else { return false }
                return named == field
            }
        }
    }

    /// The defaults are always valid, so the engine made from them needs no `try` (CONTRIBUTING.md).
    @Test func theDefaultConfigurationNeedsNoTry() {
        let engine = GiftComboEngine()
        #expect(engine.configuration == GiftComboEngine.Configuration())
    }
}
