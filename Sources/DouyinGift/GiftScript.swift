/// A gift script: one send a line, `<ms> <user> <gift> [count] [value]`, for simulations and
/// tests. Blank lines and lines starting with `#` are skipped; times must not decrease.
///
/// Times are whole milliseconds from 0 to ``GiftComboEngine/maximumTime`` (2⁵³), counts 1 to
/// ``GiftSend/maximumCount`` and values within ±``GiftSend/maximumCount``: a line beyond them is
/// refused naming its number, before the engine sees it.
public struct GiftScript: Hashable, Sendable {
    /// One timed send.
    public struct Line: Hashable, Sendable {
        /// When, since the script's start.
        public var time: Duration
        /// Who sent what, how many and of which value.
        public var send: GiftSend
    }

    /// The sends, in script order.
    public var lines: [Line]

    /// Parses a script.
    ///
    /// - Throws: ``GiftError/invalidScriptLine(line:reason:)`` for the first malformed or
    ///   out-of-range line.
    public init(parsing text: String) throws(GiftError) {
        var lines: [Line] = []
        var previous: Int64 = 0
        let latest = Int64(1) << 53  // GiftComboEngine.maximumTime in ms.
        let most = GiftSend.maximumCount
        // Unicode scalars, not Characters: "\r\n" is one Character, equal to neither "\n" nor
        // "\r", so a CRLF script was one long line; and "#" with a combining mark after it
        // was no comment (found writing the gift script's fuzz target).
        for (offset, raw) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map { String(String.UnicodeScalarView($0)) }
            if fields.isEmpty || fields[0].unicodeScalars.first == "#" { continue }
            guard (3...5).contains(fields.count) else {
                throw GiftError.invalidScriptLine(line: number, reason: "expected <ms> <user> <gift> [count] [value], found \(fields.count) fields")
            }
            guard let ms = Int64(fields[0]), ms >= 0 else {
                throw GiftError.invalidScriptLine(line: number, reason: "time \"\(fields[0])\" is not a whole number of milliseconds")
            }
            guard ms <= latest else {
                throw GiftError.invalidScriptLine(line: number, reason: "time \(ms) ms is after the latest the engine takes, \(latest) ms")
            }
            guard ms >= previous else {
                throw GiftError.invalidScriptLine(line: number, reason: "time \(ms) is before the previous line's \(previous)")
            }
            let count = fields.count > 3 ? Int(fields[3]) : 1
            guard let count, count >= 1 else {
                throw GiftError.invalidScriptLine(line: number, reason: "count \"\(fields[3])\" is not a positive whole number")
            }
            guard count <= most else {
                throw GiftError.invalidScriptLine(line: number, reason: "count \(count) is above the largest the engine takes, \(most)")
            }
            let value = fields.count > 4 ? Int(fields[4]) : 0
            guard let value else {
                throw GiftError.invalidScriptLine(line: number, reason: "value \"\(fields[4])\" is not a whole number")
            }
            guard value.magnitude <= most else {
                throw GiftError.invalidScriptLine(line: number, reason: "value \(value) is beyond ±\(most)")
            }
            previous = ms
            let send = GiftSend(user: fields[1], gift: fields[2], count: count, value: value)
            lines.append(Line(time: .milliseconds(ms), send: send))
        }
        self.lines = lines
    }

    /// Plays the script through a fresh engine and lets the remaining time pass, returning
    /// every event in order.
    ///
    /// - Throws: ``GiftError/configurationOutOfRange(field:value:allowed:)``; the lines
    ///   themselves were checked when parsed.
    public func run(_ configuration: GiftComboEngine.Configuration) throws(GiftError) -> [GiftEvent] {
        var engine = try GiftComboEngine(configuration: configuration)
        var events: [GiftEvent] = []
        for line in lines {
            try engine.send(line.send, at: line.time, into: &events)
        }
        return events + engine.flush()
    }
}
