import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The demo's progress display: one line on stderr redrawn with `\r`, shown only when stderr is
/// a terminal, so a piped or logged run holds the results alone, in order.
enum Progress {
    /// Whether stderr is a terminal (decided once, at the first use).
    static let isShown = isatty(STDERR_FILENO) == 1

    /// Replaces the progress line with `text`.
    static func redraw(_ text: String) {
        guard isShown else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
    }

    /// Erases the progress line, so the next stdout line starts on a clean line.
    static func clear() {
        guard isShown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
