import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a verb that fetches bytes (`cache get`, `video get`) writes them, decided before the
/// fetch: a terminal would show raw bytes as garbage and may act on control sequences in them,
/// so as curl does, stdout on a terminal needs `--out -` to say so.
enum BinaryOutput: Equatable {
    /// `--out <path>`: a regular file, through ``OutputFile``.
    case file(String)
    /// Stdout: a pipe or file, or a terminal the user asked for with `--out -`.
    case standardOutput
    /// No `--out` and stdout is a terminal: the verb stops before fetching.
    case refused

    /// The destination for the `--out` value (`nil` when absent) when stdout is, or is not, a
    /// terminal.
    static func decide(out: String?, standardOutputIsTerminal: Bool) -> BinaryOutput {
        switch out {
        case "-": .standardOutput
        case let path?: .file(path)
        case nil: standardOutputIsTerminal ? .refused : .standardOutput
        }
    }

    /// The decision for this process's stdout; `.refused` becomes the error that says what to do.
    static func resolve(out: String?) throws(ToolError) -> BinaryOutput {
        let decision = decide(out: out, standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
        if decision == .refused {
            throw .failed("not writing binary data to a terminal: give --out <file>, or --out - to write it here anyway")
        }
        return decision
    }
}
