/// A gift script: one send a line, `<ms> <user> <gift> [count] [value]`, for simulations and
/// tests. Blank lines and lines starting with `#` are skipped; times must not decrease.
public struct GiftScript: Hashable, Sendable {
    /// One timed send.
    public struct Line: Hashable, Sendable {
        /// When, since the script's start.
        public var time: Duration
        /// What.
        public var send: GiftSend
    }

    /// The sends, in script order.
    public var lines: [Line]

    /// Parses a script; the first malformed line is a ``GiftScriptError`` naming its number.
    public init(parsing text: String) throws(GiftScriptError) {
        var lines: [Line] = []
        var previous: Int64 = 0
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard (3...5).contains(fields.count) else {
                throw GiftScriptError(line: number, reason: "expected <ms> <user> <gift> [count] [value], found \(fields.count) fields")
            }
            guard let ms = Int64(fields[0]), ms >= 0 else {
                throw GiftScriptError(line: number, reason: "time \"\(fields[0])\" is not a whole number of milliseconds")
            }
            guard ms >= previous else {
                throw GiftScriptError(line: number, reason: "time \(ms) is before the previous line's \(previous)")
            }
            let count = fields.count > 3 ? Int(fields[3]) : 1
            guard let count, count >= 1 else {
                throw GiftScriptError(line: number, reason: "count \"\(fields[3])\" is not a positive whole number")
            }
            let value = fields.count > 4 ? Int(fields[4]) : 0
            guard let value else {
                throw GiftScriptError(line: number, reason: "value \"\(fields[4])\" is not a whole number")
            }
            previous = ms
            let send = GiftSend(user: String(fields[1]), gift: String(fields[2]), count: count, value: value)
            lines.append(Line(time: .milliseconds(ms), send: send))
        }
        self.lines = lines
    }

    /// Plays the script through a fresh engine and lets the remaining time pass, returning
    /// every event in order.
    public func run(_ configuration: GiftConfiguration) -> [GiftEvent] {
        var engine = GiftComboEngine(configuration: configuration)
        var events: [GiftEvent] = []
        for line in lines {
            engine.send(line.send, at: line.time, into: &events)
        }
        return events + engine.flush()
    }
}

/// A script line that could not be read.
public struct GiftScriptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line's number, from 1.
    public var line: Int
    /// What was wrong with it.
    public var reason: String

    /// `line N: reason`.
    public var description: String { "line \(line): \(reason)" }
}
