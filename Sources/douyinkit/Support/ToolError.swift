import Foundation

/// Why the tool stopped: a wrong command line (exit 2) or input it could not process (exit 1).
package enum ToolError: Error {
    case usage(String)
    case failed(String)

    /// Prints the reason on stderr and exits with the verb's documented status.
    func exit() -> Never {
        switch self {
        case .usage(let text):
            FileHandle.standardError.write(Data((text + "\n").utf8))
            Foundation.exit(2)
        case .failed(let reason):
            FileHandle.standardError.write(Data(("error: " + reason + "\n").utf8))
            Foundation.exit(1)
        }
    }
}

/// Writes one line to stderr, for the verbs' side reports (`source=...`).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
