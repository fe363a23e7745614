import DouyinSupport

/// What the gift engine refused, and why: a value it cannot represent, or a script line it
/// cannot read. The engine's state is unchanged when it throws.
public enum GiftError: Error, Hashable, Sendable {
    /// A send's count (increment or absolute total) above ``GiftSend/maximumCount``.
    case countOutOfRange(GiftCount, key: GiftKey)
    /// A send's value beyond ±``GiftSend/maximumCount``.
    case valueOutOfRange(Int, key: GiftKey)
    /// A time after ``GiftComboEngine/maximumTime``.
    case timeOutOfRange(Duration)
    /// A configuration field outside its documented range.
    case configurationOutOfRange(field: String, value: String, allowed: String)
    /// A script line that could not be read; `line` counts from 1.
    case invalidScriptLine(line: Int, reason: String)
}

extension GiftError: CustomStringConvertible {
    /// What was refused, in one line a person can act on.
    public var description: String {
        switch self {
        case .countOutOfRange(let count, let key):
            let number: Int
            switch count {
            case .increment(let value), .absolute(let value): number = value
            }
            return "count \(number) of \(key) is above the largest the engine takes, \(GiftSend.maximumCount)"
        case .valueOutOfRange(let value, let key):
            return "value \(value) of \(key) is beyond ±\(GiftSend.maximumCount)"
        case .timeOutOfRange(let time):
            return "time \(time.exactMillisecondsText) ms is after the latest the engine takes, \(GiftComboEngine.maximumTime.exactMillisecondsText) ms"
        case .configurationOutOfRange(let field, let value, let allowed):
            return "\(field) \(value) is outside \(allowed)"
        case .invalidScriptLine(let line, let reason):
            return "line \(line): \(reason)"
        }
    }
}
