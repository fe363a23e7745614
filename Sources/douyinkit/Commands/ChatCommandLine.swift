import DouyinKit
import Foundation

/// The command line of the realtime verbs, `chat listen` and `ws echo`, parsed by one table:
/// one `ws://` or `wss://` URL and the options a verb accepts, each worded the same in both
/// (a wrong value or an option the verb does not take exits 2 with its usage).
struct ChatCommandLine {
    /// What an option's value must be.
    enum Kind {
        /// Any text (`--udid`, `--cacert`).
        case text
        /// A whole number above 0 (`--count`).
        case wholeAboveZero
        /// Seconds above 0, finite, below `maximum` when one is given.
        case seconds(maximum: Double?)
        /// No value (`--verbose`).
        case flag
    }

    /// Every option of the realtime verbs; a verb accepts a subset.
    static let kinds: [String: Kind] = [
        "--udid": .text, "--cacert": .text, "--count": .wholeAboveZero, "--timeout": .seconds(maximum: nil),
        "--heartbeat": .seconds(maximum: 86_400), "--pong-timeout": .seconds(maximum: 86_400), "--retry-cap": .seconds(maximum: 86_400),
        "--verbose": .flag,
    ]

    /// The URL, checked by ``ChatURL/parse(_:usage:)`` (a URL that can never be opened is a
    /// usage error).
    let url: URL
    private var texts: [String: String] = [:]
    private var numbers: [String: Double] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (after the verb's subcommand), taking only the options in `accepts`.
    init(_ arguments: ArraySlice<String>, usage: String, accepts: Set<String>) throws {
        var urlText: String?
        var rest = arguments
        while let argument = rest.popFirst() {
            guard accepts.contains(argument), let kind = Self.kinds[argument] else {
                guard urlText == nil, !argument.hasPrefix("--") else { throw ToolError.usage(usage) }
                urlText = argument
                continue
            }
            switch kind {
            case .flag:
                flags.insert(argument)
            case .text:
                guard let value = rest.popFirst() else {
                    throw ToolError.usage(argument == "--cacert" ? "--cacert takes a PEM file\n" + usage : usage)
                }
                texts[argument] = value
            case .wholeAboveZero:
                guard let value = rest.popFirst(), let number = Int(value), number > 0 else {
                    throw ToolError.usage("\(argument) takes a whole number above 0\n" + usage)
                }
                numbers[argument] = Double(number)
            case .seconds(let maximum):
                guard let value = rest.popFirst(), let seconds = Double(value), seconds > 0, seconds.isFinite, seconds < maximum ?? .infinity else {
                    throw ToolError.usage("\(argument) takes seconds above 0\n" + usage)
                }
                numbers[argument] = seconds
            }
        }
        guard let urlText else { throw ToolError.usage("missing the ws:// or wss:// URL\n" + usage) }
        url = try ChatURL.parse(urlText, usage: usage)
    }

    /// A text option's value; `nil` when absent.
    func text(_ name: String) -> String? { texts[name] }

    /// A whole-number option's value; `nil` when absent.
    func count(_ name: String) -> Int? { numbers[name].map { Int($0) } }

    /// A seconds option's value; `nil` when absent.
    func seconds(_ name: String) -> Double? { numbers[name] }

    /// A seconds option as a duration (millisecond precision); `nil` when absent.
    func duration(_ name: String) -> Duration? { numbers[name].map { .milliseconds(Int64($0 * 1000)) } }

    /// Whether a flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}
