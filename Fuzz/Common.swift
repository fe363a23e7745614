// Shared by every fuzz target (compiled into each): how a broken property stops the run.
import Foundation

/// Ends the run when a property does not hold, so libFuzzer saves the input as a crash: the
/// message says which property and what was seen.
func require(_ holds: @autoclosure () -> Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
    if holds() { return }
    FileHandle.standardError.write(Data("property broken (line \(line)): \(message())\n".utf8))
    abort()
}

/// The input as an array (the targets slice and compare it).
func bytes(_ data: UnsafePointer<UInt8>, _ count: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: count))
}

/// `bytes` with every byte as the Unicode scalar of the same number (ISO 8859-1), so a
/// reference written as a regular expression sees each byte as one character.
func latin1(_ bytes: some Sequence<UInt8>) -> String {
    var text = ""
    text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
    return text
}
