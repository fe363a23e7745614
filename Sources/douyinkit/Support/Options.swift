import DouyinKit
import Foundation

/// The `--name value` options and positional arguments of one verb, parsed once; every verb
/// reads its command line through this, so a missing option, a malformed value and an unknown
/// option are worded the same everywhere (exit 2 with the verb's usage).
struct Options {
    /// The arguments that are not options, in order.
    private(set) var positional: [String] = []
    /// Whether `--verbose` was given (a flag, it takes no value): the library's log events go
    /// to standard error through ``log``.
    private(set) var verbose = false
    private var named: [String: String] = [:]
    private let usage: String

    /// Splits `arguments`: every `--name` takes the next argument as its value.
    init(_ arguments: [String], usage: String) throws(ToolError) {
        self.usage = usage
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--verbose" {
                verbose = true
            } else if argument.hasPrefix("--"), argument.count > 2 {
                guard let value = rest.popFirst() else { throw ToolError.usage("\(argument) needs a value\n\(usage)") }
                named[argument] = value
            } else {
                positional.append(argument)
            }
        }
    }

    /// The log hook to put in the library components' configurations: one line per event on
    /// standard error with `--verbose`, `nil` (nothing logged) without.
    var log: LogHandler? { verbose ? LogHandler { printError("log: \($0)") } : nil }

    /// Takes a named string option; `nil` when absent.
    mutating func string(_ name: String) -> String? {
        named.removeValue(forKey: name)
    }

    /// Takes a named option the verb cannot run without: absent, the error names it
    /// (`missing --dir <dir>`), with `placeholder` as in the usage.
    mutating func required(_ name: String, _ placeholder: String) throws(ToolError) -> String {
        guard let value = named.removeValue(forKey: name) else { throw missing("\(name) \(placeholder)") }
        return value
    }

    /// The error for a missing argument, named as in the usage (`--dir <dir>`, `<url>`).
    func missing(_ what: String) -> ToolError {
        .usage("missing \(what)\n\(usage)")
    }

    /// The error for a value given but unusable: `what` names it and `reason` says what is wrong.
    func malformed(_ what: String, _ value: String, _ reason: String) -> ToolError {
        .usage("\(what) \"\(TerminalText.escaped(value))\" \(reason)\n\(usage)")
    }

    /// `text` as an absolute URL, or a usage error naming `what` and saying what is wrong: no
    /// scheme (`127.0.0.1:8080/douyin`), a scheme outside `schemes` (any when `nil`), no host
    /// for a network scheme, or not a URL at all.
    func url(_ what: String, _ text: String, schemes: Set<String>? = nil) throws(ToolError) -> URL {
        guard let url = URL(string: text) else {
            // "127.0.0.1:8080/douyin" is no URL at all (a scheme starts with a letter): the
            // scheme is what is missing, and saying so is what the user can act on.
            throw malformed(what, text, text.contains("://") ? "is not a URL" : URLCheck.noScheme)
        }
        switch URLCheck.problem(url, schemes: schemes) {
        case nil: return url
        case let problem?: throw malformed(what, text, problem)
        }
    }

    /// Takes a named whole-number option, at least `minimum`; `value` when absent.
    mutating func integer(_ name: String, default value: Int, minimum: Int) throws(ToolError) -> Int {
        guard let text = named.removeValue(forKey: name) else { return value }
        guard let number = Int(text), number >= minimum else {
            throw ToolError.usage("\(name) must be a whole number ≥ \(minimum), not \"\(TerminalText.escaped(text))\"\n\(usage)")
        }
        return number
    }

    /// Takes a named whole-number option within `range`; `value` when absent. Not a number is a
    /// usage error (exit 2), a number outside the range an error naming the option and the
    /// range (exit 1).
    mutating func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(ToolError) -> Int {
        guard let text = named.removeValue(forKey: name) else { return value }
        guard let number = Int(text) else {
            // Digits only, yet no Int: too large to read, so out of range rather than malformed.
            if !text.isEmpty, text.drop(while: { $0 == "-" || $0 == "+" }).allSatisfy(\.isWholeNumber) {
                throw ToolError.failed("\(name) \(text) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            throw ToolError.usage("\(name) must be a whole number, not \"\(TerminalText.escaped(text))\"\n\(usage)")
        }
        guard range.contains(number) else {
            throw ToolError.failed("\(name) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// Fails on any option the verb did not take.
    func finish() throws(ToolError) {
        if let unknown = named.keys.sorted().first { throw ToolError.usage("unknown option \(TerminalText.escaped(unknown))\n\(usage)") }
    }
}

/// What is wrong with a URL given on the command line, worded for the user; pure so the
/// wording is tested without running the tool.
enum URLCheck {
    /// The message for a URL written without its scheme.
    static let noScheme = "has no scheme: write it as http://HOST:PORT/..."

    /// `nil` when `url` is usable, else why not.
    static func problem(_ url: URL, schemes: Set<String>?) -> String? {
        // "127.0.0.1:8080/douyin" parses with the scheme "127.0.0.1"; a scheme is letters first.
        guard let scheme = url.scheme?.lowercased(), scheme.first?.isLetter == true, url.absoluteString.contains("://") || scheme == "file" else {
            return noScheme
        }
        if let schemes, !schemes.contains(scheme) {
            return "has the scheme \(scheme): expected \(schemes.sorted().joined(separator: " or "))"
        }
        if scheme != "file", (url.host ?? "").isEmpty { return "has no host" }
        return nil
    }
}
