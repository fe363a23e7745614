import DouyinKit
import Foundation

/// `douyinkit gift-sim <script> [--tracks N] [--combo-window MS] [--max-combo N]`.
enum GiftSimCommand {
    static let usage = "usage: douyinkit gift-sim <script> [--tracks N] [--combo-window MS] [--max-combo N]"

    static func run(_ arguments: [String]) throws {
        var options = try Options(arguments, usage: usage)
        guard let path = options.positional.first, options.positional.count == 1 else { throw ToolError.usage(usage) }
        // The engine's own ranges, checked here too so the message names the option.
        let configuration = GiftComboEngine.Configuration(
            tracks: try options.integer("--tracks", default: 2, in: 1...GiftComboEngine.Configuration.maximumTracks),
            comboWindow: .milliseconds(try options.integer("--combo-window", default: 3000, in: 0...(1 << 53))),
            maxCombo: try options.integer("--max-combo", default: 99, in: 1...GiftSend.maximumCount)
        )
        try options.finish()
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ToolError.failed("cannot read \(TerminalText.escaped(path))")
        }
        let script: GiftScript
        do {
            script = try GiftScript(parsing: text)
        } catch {
            // A script line's reason quotes the line's own fields.
            throw ToolError.failed(TerminalText.escaped("\(path): \(error)"))
        }
        let events: [GiftEvent]
        do {
            events = try script.run(configuration)
        } catch {
            throw ToolError.failed(TerminalText.escaped("\(path): \(error)"))
        }
        // Keys are the script's user and gift names: escaped, so an ESC or a C1 in a name
        // reaches no terminal (whitespace already split them, so no line break is inside).
        let lines = events.filter { $0.kind != .firstDisplay }.map { TerminalText.escaped($0.description) }
        print(lines.joined(separator: "\n"))
    }
}

/// The `--name value` options and positional arguments of one verb.
struct Options {
    private(set) var positional: [String] = []
    private var named: [String: String] = [:]
    private let usage: String

    init(_ arguments: [String], usage: String) throws {
        self.usage = usage
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument.hasPrefix("--") {
                guard let value = rest.popFirst() else { throw ToolError.usage("\(argument) needs a value\n\(usage)") }
                named[argument] = value
            } else {
                positional.append(argument)
            }
        }
    }

    /// Takes a named string option.
    mutating func string(_ name: String) -> String? {
        named.removeValue(forKey: name)
    }

    /// Takes a named whole-number option.
    mutating func integer(_ name: String, default value: Int, minimum: Int) throws -> Int {
        guard let text = named.removeValue(forKey: name) else { return value }
        guard let number = Int(text), number >= minimum else {
            throw ToolError.usage("\(name) must be a whole number ≥ \(minimum), not \"\(text)\"\n\(usage)")
        }
        return number
    }

    /// Takes a named whole-number option within `range`: not a number is a usage error (exit
    /// 2), a number outside the range an error naming the option and the range (exit 1).
    mutating func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = named.removeValue(forKey: name) else { return value }
        guard let number = Int(text) else {
            // Digits only, yet no Int: too large to read, so out of range rather than malformed.
            if !text.isEmpty, text.drop(while: { $0 == "-" || $0 == "+" }).allSatisfy(\.isWholeNumber) {
                throw ToolError.failed("\(name) \(text) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            throw ToolError.usage("\(name) must be a whole number, not \"\(text)\"\n\(usage)")
        }
        guard range.contains(number) else {
            throw ToolError.failed("\(name) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// Fails on any option the verb did not take.
    func finish() throws {
        if let unknown = named.keys.sorted().first { throw ToolError.usage("unknown option \(unknown)\n\(usage)") }
    }
}
