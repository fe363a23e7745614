import DouyinChat
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

func chat(_ id: String, at seconds: Int, _ text: String = "hi", from udid: String? = nil) -> GroupChat {
    var visitor: Visitor?
    if let udid {
        let json = #"{"uid":"u-\#(udid)","udid":"\#(udid)","avatar_thumbnail":{"file_id":"a","url":"u","width":1,"height":1},"avatar_medium":{"file_id":"a","url":"u","width":1,"height":1},"avatar_large":{"file_id":"a","url":"u","width":1,"height":1}}"#
        visitor = try? JSONDecoder().decode(Visitor.self, from: Data(json.utf8))
    }
    return GroupChat.text(id: id, content: text, at: Date(timeIntervalSince1970: TimeInterval(seconds)), visitor: visitor)
}

/// `items` after applying `change` to `old` with the rows of `new`, as a table view would.
func replay(_ change: ChatTimeline.Change, on old: [ChatTimeline.Item], new: [ChatTimeline.Item]) -> [ChatTimeline.Item] {
    var rows = old
    // Reloaded rows take their new content: find them in `new` by identity.
    let newByID = Dictionary(new.map { ($0.rowID, $0) }, uniquingKeysWith: { first, _ in first })
    for index in change.reloaded { rows[index] = newByID[rows[index].rowID] ?? rows[index] }
    for index in change.removed.reversed() { rows.remove(at: index) }
    for index in change.inserted { rows.insert(new[index], at: min(index, rows.count)) }
    return rows
}

func shape(_ timeline: ChatTimeline) -> [String] {
    timeline.items.map { item in
        switch item {
        case .separator(let date, _): "— \(Int(date.timeIntervalSince1970))"
        case .message(let message):
            "\(message.chat.id) \(message.delivery)"
        }
    }
}

@Suite("Chat timeline")
struct ChatTimelineTests {
    @Test func separatorsStandWhereMoreThan300sPassed() {
        var timeline = ChatTimeline()
        let change = timeline.merge([chat("b", at: 1301), chat("a", at: 1000), chat("c", at: 1601), chat("d", at: 1602)])
        // 1000 → 1301 is over 300 s; 1301 → 1601 is exactly 300 s: no separator.
        #expect(shape(timeline) == ["— 1000", "a received", "— 1301", "b received", "c received", "d received"])
        #expect(change.inserted == IndexSet(0..<6))
    }

    @Test func anOlderPageRecomputesTheSeam() {
        var timeline = ChatTimeline()
        timeline.merge([chat("m3", at: 2000), chat("m4", at: 2100)])
        let before = timeline.items
        // The older page's last message is 100 s before the old first one: one group now.
        let change = timeline.merge([chat("m1", at: 1500), chat("m2", at: 1900)])
        #expect(shape(timeline) == ["— 1500", "m1 received", "— 1900", "m2 received", "m3 received", "m4 received"])
        #expect(replay(change, on: before, new: timeline.items) == timeline.items)
        #expect(change.removed == [0], "the old first separator goes")
    }

    @Test func aMessagePushedAgainAfterAReconnectIsShownOnce() {
        var timeline = ChatTimeline()
        timeline.merge([chat("a", at: 10), chat("b", at: 20)])
        let change = timeline.merge([chat("b", at: 20), chat("a", at: 10), chat("c", at: 30)])
        #expect(timeline.messages.map(\.chat.id) == ["a", "b", "c"])
        #expect(change == ChatTimeline.Change(inserted: [3]))
    }

    @Test func ownMessageEchoFirstThenPOSTIsShownOnce() {
        var timeline = ChatTimeline(configuration: .init(ownUDID: "me"))
        timeline.merge([chat("s1", at: 100)])
        timeline.addPending(localID: "L1", text: "hello", at: Date(timeIntervalSince1970: 105))
        #expect(shape(timeline) == ["— 100", "s1 received", "L1 pending"])
        let echo = timeline.receive(chat("s2", at: 106, "hello", from: "me"))
        #expect(shape(timeline) == ["— 100", "s1 received", "s2 sent"])
        #expect(echo == ChatTimeline.Change(reloaded: [2]), "the row stays the same row")
        let answer = timeline.confirm(localID: "L1", with: chat("s2", at: 106, "hello", from: "me"))
        #expect(answer.isEmpty)
        #expect(timeline.messages.count == 2)
    }

    @Test func ownMessagePOSTFirstThenEchoIsShownOnce() {
        var timeline = ChatTimeline(configuration: .init(ownUDID: "me"))
        timeline.addPending(localID: "L1", text: "hello", at: Date(timeIntervalSince1970: 105))
        timeline.confirm(localID: "L1", with: chat("s2", at: 106, "hello", from: "me"))
        timeline.receive(chat("s2", at: 106, "hello", from: "me"))
        #expect(shape(timeline) == ["— 106", "s2 sent"])
    }

    @Test func failedMessageRetriesInItsPlace() {
        var timeline = ChatTimeline()
        timeline.merge([chat("a", at: 100), chat("c", at: 300)])
        timeline.addPending(localID: "L", text: "x", at: Date(timeIntervalSince1970: 200))
        timeline.fail(localID: "L")
        #expect(shape(timeline) == ["— 100", "a received", "L failed", "c received"])
        let retry = timeline.retry(localID: "L")
        #expect(shape(timeline) == ["— 100", "a received", "L pending", "c received"])
        #expect(retry == ChatTimeline.Change(reloaded: [2]))
    }

    @Test func deleteRemovesTheSeparatorOnlyWhenItsGroupIsEmpty() {
        var timeline = ChatTimeline()
        timeline.merge([chat("a", at: 0), chat("b", at: 1000), chat("c", at: 1100)])
        let first = timeline.delete(id: "b")
        #expect(shape(timeline) == ["— 0", "a received", "— 1100", "c received"])
        #expect(first == ChatTimeline.Change(removed: [3], reloaded: [2]), "separator kept, redated")
        let second = timeline.delete(id: "c")
        #expect(shape(timeline) == ["— 0", "a received"])
        #expect(second.removed == [2, 3])
        timeline.merge([chat("c", at: 1100)])
        #expect(shape(timeline) == ["— 0", "a received"], "a deleted message is not shown again")
    }

    @Test func echoOfTwinTextsSettlesEachOwnMessageOnce() {
        var timeline = ChatTimeline(configuration: .init(ownUDID: "me"))
        timeline.addPending(localID: "L1", text: "same", at: Date(timeIntervalSince1970: 10))
        timeline.addPending(localID: "L2", text: "same", at: Date(timeIntervalSince1970: 11))
        // The server stored L2's POST first; its echo goes to L1 (the oldest unconfirmed twin).
        timeline.receive(chat("s9", at: 12, "same", from: "me"))
        timeline.confirm(localID: "L2", with: chat("s9", at: 12, "same", from: "me"))
        timeline.confirm(localID: "L1", with: chat("s10", at: 13, "same", from: "me"))
        #expect(timeline.messages.map(\.chat.id) == ["s9", "s10"])
        #expect(timeline.messages.allSatisfy { $0.delivery == .sent })
        #expect(Set(timeline.messages.compactMap(\.localID)) == ["L1", "L2"])
    }

    @Test func propertyRandomOperationSequencesKeepEveryRule() {
        var random = SeededRandom(seed: 0x7_1AE1)
        for round in 0..<2000 {
            runOneSequence(round: round, random: &random)
        }
    }

    func runOneSequence(round: Int, random: inout SeededRandom) {
        var timeline = ChatTimeline(configuration: .init(ownUDID: "me"))
        var serverIDs = Set<String>()        // server messages merged or confirmed, not deleted
        var deleted = Set<String>()
        var localIDs = Set<String>()         // own messages added, not deleted
        var posted: [String: GroupChat] = [:] // what the server stored for each local id
        var pendingTexts: [String: String] = [:]
        var nextID = 0
        var anyDelete = false
        for step in 0..<Int.random(in: 1...40, using: &random) {
            let before = timeline.items
            let change: ChatTimeline.Change
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                // A page or push: some new ids, some repeats, times anywhere in an hour.
                var batch: [GroupChat] = []
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    if !serverIDs.isEmpty, Bool.random(using: &random) {
                        let id = serverIDs.randomElement(using: &random)!
                        if let found = timeline.messages.first(where: { $0.chat.id == id }) { batch.append(found.chat) }
                    } else {
                        nextID += 1
                        let id = String(format: "s%04d", nextID)
                        batch.append(chat(id, at: Int.random(in: 0...3600, using: &random)))
                        if !deleted.contains(id) { serverIDs.insert(id) }
                    }
                }
                change = timeline.merge(batch)
            case 3:
                nextID += 1
                let local = "L\(nextID)"
                // Unique texts: which of two identical own texts an echo settles is arbitrary
                // (they are interchangeable), so twins have their own test above.
                let text = "text of \(local)"
                pendingTexts[local] = text
                localIDs.insert(local)
                change = timeline.addPending(localID: local, text: text, at: Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...3600, using: &random))))
            case 4, 5:
                // The server stores a random own message (once) and answers it or echoes it.
                guard let local = localIDs.sorted().randomElement(using: &random) else { continue }
                let stored: GroupChat
                if let known = posted[local] { stored = known } else {
                    nextID += 1
                    stored = chat(String(format: "s%04d", nextID), at: Int.random(in: 0...3600, using: &random), pendingTexts[local]!, from: "me")
                    posted[local] = stored
                }
                if Bool.random(using: &random) {
                    change = timeline.receive(stored)
                } else {
                    change = timeline.confirm(localID: local, with: stored)
                }
                if !deleted.contains(stored.id) { serverIDs.insert(stored.id) }
            case 6:
                guard let local = pendingTexts.keys.sorted().randomElement(using: &random) else { continue }
                change = Bool.random(using: &random) ? timeline.fail(localID: local) : timeline.retry(localID: local)
            default:
                guard let row = timeline.messages.randomElement(using: &random) else { continue }
                anyDelete = true
                change = timeline.delete(id: row.chat.id)
                deleted.insert(row.chat.id)
                serverIDs.remove(row.chat.id)
                if let local = row.localID { localIDs.remove(local) }
            }
            let context = "round \(round) step \(step) \(random)"
            #expect(replay(change, on: before, new: timeline.items) == timeline.items, "diff replays: \(context)")
            check(timeline, serverIDs: serverIDs, localIDs: localIDs, strict: !anyDelete, context: context)
        }
    }

    func check(_ timeline: ChatTimeline, serverIDs: Set<String>, localIDs: Set<String>, strict: Bool, context: String) {
        let messages = timeline.messages
        let ids = messages.map(\.chat.id)
        #expect(Set(ids).count == ids.count, "no id twice: \(context)")
        #expect(Set(messages.map(\.rowID)).count == messages.count, "no row twice: \(context)")
        let keys = messages.map { ($0.chat.createTime!, $0.chat.id) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }, "order kept: \(context)")
        let shownServer = Set(messages.filter { $0.delivery == .received || $0.delivery == .sent }.map(\.chat.id))
        #expect(shownServer == serverIDs, "every server message once, deleted ones gone: \(context)")
        #expect(Set(messages.compactMap(\.localID)) == localIDs, "every own message once: \(context)")
        // Separators: first row, one above every gap over 300 s, dated with the next message,
        // never two in a row or last; without deletes exactly at the gaps.
        let items = timeline.items
        if let first = items.first { #expect(first.message == nil, "starts with a separator: \(context)") }
        for (index, item) in items.enumerated() {
            guard case .separator(let date, _) = item else { continue }
            #expect(index + 1 < items.count && items[index + 1].message?.chat.createTime == date, "separator dated by its message: \(context)")
        }
        var previous: ChatMessage?
        for (index, item) in items.enumerated() {
            guard let message = item.message else { continue }
            let hasSeparator = index > 0 && items[index - 1].message == nil
            if let previous {
                let gap = message.chat.createTime!.timeIntervalSince(previous.chat.createTime!)
                if gap > 300 { #expect(hasSeparator, "separator at a gap of \(gap) s: \(context)") }
                if strict { #expect(hasSeparator == (gap > 300), "separator exactly at gaps: \(context)") }
            }
            previous = message
        }
    }
}
