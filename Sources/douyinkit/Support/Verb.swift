/// One verb of the tool: its name on the command line, what it does in one line, its usage
/// text and the function that runs it. `main.swift` builds the verb table, the `--help` text
/// and the per-verb `--help` from these alone, so a verb's help cannot drift from its table entry.
struct Verb: Sendable {
    /// The first argument that selects the verb, such as `cache`.
    let name: String
    /// What the verb does, one line without a final period, shown by `douyinkit --help`.
    let summary: String
    /// The verb's full usage (starting `usage: douyinkit <name>`), printed by `<verb> --help`
    /// and with every command-line error.
    let usage: String
    /// Runs the verb on the arguments after its name.
    let run: @Sendable ([String]) async throws -> Void
}

/// The whole tool's help: the usage line and one line per verb.
enum Help {
    /// `douyinkit --help`: each verb's name padded to one column, then its summary.
    static func text(_ verbs: [Verb]) -> String {
        let width = verbs.map(\.name.count).max() ?? 0
        let lines = verbs.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary }
        return (["usage: douyinkit <verb> [arguments]   (douyinkit <verb> --help for its options)", "verbs:"]
            + lines + ["  --help, --version", "  <verb> ... --verbose   also print the library's log events on stderr (cache, video, api, feed)"]).joined(separator: "\n")
    }

    /// Whether the verb's arguments ask for its help rather than running it.
    static func isRequest(_ arguments: [String]) -> Bool {
        arguments.contains("--help") || arguments.first == "-h" || arguments.first == "help"
    }
}
