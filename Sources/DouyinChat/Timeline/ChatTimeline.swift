import DouyinModels
import Foundation

/// What a chat screen shows: messages in order and the time separators between them, with the
/// index-set changes a table view needs after every operation.
///
/// Messages are ordered by (`create_time`, `id`), whichever way they arrive: older pages,
/// pushes, the gap fill after a reconnect, own messages. A message id is shown at most once;
/// one that was deleted does not come back when the server sends it again.
///
/// Separators: a *group* starts at the first shown message and at every message that comes more
/// than ``Configuration/separatorGap`` (300 s) after the shown message before it; each group
/// shows one separator above its first message, dated with that message's time. The rule is
/// applied across page seams: when an older page arrives, the old first message's separator goes
/// if the page's last message is close enough. Deleting a message removes its group's separator
/// only when no message of the group remains: deleting a group's first message hands the
/// separator to the group's next message.
///
/// Own messages: ``addPending(localID:text:at:visitor:)`` shows one at once; it becomes
/// `.sent` when ``confirm(localID:with:)`` passes the POST's answer or when its push echo arrives
/// (a pushed message from ``Configuration/ownUDID`` with the same type and content as the oldest
/// unconfirmed own message), in either order and shown once; ``fail(localID:)`` marks it
/// failed and ``retry(localID:at:)`` makes it pending again in its place.
///
/// A value type: copy it, test it without a screen. Each operation costs O(n) in the messages
/// held (a chat screen holds thousands).
public struct ChatTimeline: Sendable {
    /// How the timeline groups and recognises messages.
    public struct Configuration: Sendable, Hashable {
        /// A message more than this long after the previous one starts a new group with its own
        /// separator. 300 s by default.
        public var separatorGap: Duration
        /// This device's `udid`: pushed messages from it are echoes of own messages. `nil` (the
        /// default) means no echo matching; confirmations then come from the POST only.
        public var ownUDID: String?

        /// A configuration; every argument has the documented default.
        public init(separatorGap: Duration = .seconds(300), ownUDID: String? = nil) {
            self.separatorGap = separatorGap
            self.ownUDID = ownUDID
        }
    }

    /// One row of the chat screen.
    public enum Item: Sendable, Hashable {
        /// A time separator above a group; `date` is the time of the group's first shown
        /// message, `group` names the group (stable while the group exists).
        case separator(date: Date, group: String)
        /// A message.
        case message(ChatMessage)

        /// The identity a table view keeps for this row across changes.
        public var rowID: String {
            switch self {
            case .separator(_, let group): "separator:" + group
            case .message(let message): message.rowID
            }
        }

        /// The message of a message row, `nil` for a separator.
        public var message: ChatMessage? {
            if case .message(let message) = self { return message }
            return nil
        }
    }

    /// One accepted message; deleted ones stay as tombstones so groups and de-duplication do
    /// not change when a message is deleted.
    struct Entry: Sendable {
        var message: ChatMessage
        var deleted = false
        /// Holds a separator handed over when its group's first message was deleted; the
        /// separator keeps the group's identity (`group`).
        var inheritedGroup: String?
        // A message without `create_time` sorts first (the API always sends one; other feeds may not).
        var time: Date { message.chat.createTime ?? .distantPast }
        var id: String { message.chat.id }

        static func precedes(_ lhs: (Date, String), _ rhs: (Date, String)) -> Bool {
            lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1 < rhs.1
        }
    }

    /// The timeline's settings.
    public let configuration: Configuration
    /// Every accepted message (tombstones included) in (time, id) order.
    private var entries: [Entry] = []
    /// Ids held by an entry (server ids, and the local ids of unconfirmed own messages).
    private var heldIDs: Set<String> = []
    /// Own messages: local id → the id their entry holds now.
    private var ownEntries: [String: String] = [:]

    /// What the screen shows, top to bottom.
    public private(set) var items: [Item] = []

    /// An empty timeline.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The messages shown, in order.
    public var messages: [ChatMessage] { items.compactMap(\.message) }

    // MARK: - Operations

    /// Adds messages from the server: an older page, a push, or the gap fill after a reconnect.
    /// Ids already held (or deleted) are not added again; an echo of an own message confirms it.
    @discardableResult
    public mutating func merge(_ chats: [GroupChat]) -> Change {
        apply { timeline in
            for chat in chats { timeline.accept(chat) }
        }
    }

    /// Adds one pushed message (see ``merge(_:)``).
    @discardableResult
    public mutating func receive(_ chat: GroupChat) -> Change { merge([chat]) }

    /// Shows an own text message at once, pending. `localID` must be unique among own messages
    /// and never equal a server id (a UUID string does); a repeated local id changes nothing.
    @discardableResult
    public mutating func addPending(localID: String, text: String, at date: Date, visitor: Visitor? = nil) -> Change {
        apply { timeline in
            guard timeline.ownEntries[localID] == nil, !timeline.heldIDs.contains(localID) else { return }
            let chat = GroupChat.text(id: localID, content: text, at: date, visitor: visitor)
            timeline.insert(Entry(message: ChatMessage(chat: chat, delivery: .pending, localID: localID)))
            timeline.ownEntries[localID] = localID
        }
    }

    /// The POST of own message `localID` answered with the server's message: the message becomes
    /// sent with the server's id and time (moving if that time sorts it elsewhere). An echo that
    /// arrived first is not shown twice.
    @discardableResult
    public mutating func confirm(localID: String, with chat: GroupChat) -> Change {
        apply { timeline in timeline.settle(localID: localID, with: chat) }
    }

    /// The POST of own message `localID` failed: a pending message becomes failed (one an echo
    /// already confirmed stays sent: the server has it).
    @discardableResult
    public mutating func fail(localID: String) -> Change {
        apply { timeline in
            guard let index = timeline.ownIndex(localID), timeline.entries[index].message.delivery == .pending else { return }
            timeline.entries[index].message.delivery = .failed
        }
    }

    /// Sends a failed own message again: it becomes pending in the same place.
    @discardableResult
    public mutating func retry(localID: String, at date: Date? = nil) -> Change {
        apply { timeline in
            guard let index = timeline.ownIndex(localID), timeline.entries[index].message.delivery == .failed else { return }
            timeline.entries[index].message.delivery = .pending
        }
    }

    /// Removes message `id` (a server id, or the local id of an own message). Its separator goes
    /// only when no message of its group remains; the id is not shown again if re-sent.
    @discardableResult
    public mutating func delete(id: String) -> Change {
        apply { timeline in
            let target = timeline.ownEntries[id] ?? id
            guard let index = timeline.entries.firstIndex(where: { $0.id == target && !$0.deleted }) else { return }
            timeline.handOverSeparator(from: index)
            timeline.entries[index].deleted = true
        }
    }

    // MARK: - Internals

    /// Runs `body`, rebuilds the rows and returns how they changed.
    private mutating func apply(_ body: (inout ChatTimeline) -> Void) -> Change {
        let before = items
        body(&self)
        items = Self.rows(of: entries, gap: configuration.separatorGap)
        return Self.difference(from: before, to: items)
    }

    private mutating func accept(_ chat: GroupChat) {
        if heldIDs.contains(chat.id) { return }
        if let udid = configuration.ownUDID, chat.visitor?.udid == udid,
           let index = entries.firstIndex(where: {
               !$0.deleted && ($0.message.delivery == .pending || $0.message.delivery == .failed)
                   && $0.message.chat.msgType == chat.msgType && $0.message.chat.msgContent == chat.msgContent
           }),
           let localID = entries[index].message.localID {
            settle(localID: localID, with: chat)
            return
        }
        insert(Entry(message: ChatMessage(chat: chat)))
    }

    /// Makes own message `localID` the server's `chat`, whichever of POST answer and echo came.
    private mutating func settle(localID: String, with chat: GroupChat) {
        guard let index = ownIndex(localID) else { return }
        let entry = entries[index]
        if entry.id == chat.id {
            entries[index].message.chat = chat
            if entries[index].message.delivery != .sent { entries[index].message.delivery = .sent }
            return
        }
        if let other = entries.firstIndex(where: { $0.id == chat.id }) {
            // The server id is already shown: an echo went to a twin (same text) or arrived
            // before this device's udid was known. Identical texts are interchangeable, so
            // the shown message takes this local id and this entry takes the other's place.
            let otherLocalID = entries[other].message.localID
            entries[other].message.localID = localID
            entries[other].message.delivery = .sent
            ownEntries[localID] = chat.id
            if let otherLocalID {
                entries[index].message.localID = otherLocalID
                ownEntries[otherLocalID] = entry.id
            } else {
                // The shown copy was taken as someone else's: this entry was its duplicate.
                heldIDs.remove(entry.id)
                entries.remove(at: index)
            }
            return
        }
        // Move the entry to the server's id and time (a move is no delete: the rule alone
        // places the separators around both places).
        entries.remove(at: index)
        heldIDs.remove(entry.id)
        var message = entry.message
        message.chat = chat
        message.delivery = .sent
        insert(Entry(message: message, deleted: entry.deleted))
        ownEntries[localID] = chat.id
    }

    /// Before the shown entry at `index` goes away: if it heads a group and the group's next
    /// message stays, that message takes the separator (with the group's identity).
    private mutating func handOverSeparator(from index: Int) {
        let gap = Self.seconds(configuration.separatorGap)
        let previous = entries[..<index].last { !$0.deleted }
        let startsGroup = entries[index].inheritedGroup != nil || previous.map { entries[index].time.timeIntervalSince($0.time) > gap } ?? true
        guard startsGroup, let next = entries[(index + 1)...].firstIndex(where: { !$0.deleted }) else { return }
        let nextStartsOwnGroup = entries[next].inheritedGroup != nil || entries[next].time.timeIntervalSince(entries[index].time) > gap
        guard !nextStartsOwnGroup else { return }
        entries[next].inheritedGroup = entries[index].inheritedGroup ?? entries[index].id
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func ownIndex(_ localID: String) -> Int? {
        guard let id = ownEntries[localID] else { return nil }
        return entries.firstIndex { $0.id == id && !$0.deleted }
    }

    private mutating func insert(_ entry: Entry) {
        let key = (entry.time, entry.id)
        // Binary search for the first entry that sorts after the new one.
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if Entry.precedes((entries[middle].time, entries[middle].id), key) { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
        heldIDs.insert(entry.id)
    }

    /// The rows for `entries`: a separator above the first shown message, above every shown
    /// message more than `gap` after the previous shown one, and above one that inherited a
    /// separator.
    static func rows(of entries: [Entry], gap: Duration) -> [Item] {
        let gapSeconds = seconds(gap)
        var rows: [Item] = []
        rows.reserveCapacity(entries.count + entries.count / 4)
        var previous: Date?
        for entry in entries where !entry.deleted {
            if entry.inheritedGroup != nil || previous.map({ entry.time.timeIntervalSince($0) > gapSeconds }) ?? true {
                rows.append(.separator(date: entry.time, group: entry.inheritedGroup ?? entry.id))
            }
            rows.append(.message(entry.message))
            previous = entry.time
        }
        return rows
    }
}
