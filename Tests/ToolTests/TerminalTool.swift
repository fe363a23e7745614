import DouyinTestSupport
import Foundation

/// Runs `douyinkit` with its stdout on a pseudo-terminal, as a person at a terminal runs it, and
/// returns what reached the terminal, the stderr text and the exit status. util-linux's
/// `script` makes the terminal (a real pty; Glibc's Swift module has no posix_openpt); the
/// tool's stderr goes to a file, so the terminal holds stdout alone.
func runOnTerminal(_ arguments: [String]) async throws -> (status: Int32, terminal: Data, stderr: String) {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let errURL = folder.appending("stderr"), outURL = folder.appending("terminal")
    try Data().write(to: errURL)
    try Data().write(to: outURL)
    let tool = Tool.productsDirectory.appendingPathComponent("douyinkit").path
    let quoted = ([tool] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let command = quoted.joined(separator: " ") + " 2>'\(errURL.path)'"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    // -q: no banner; -e: exit with the command's status; -c: the command; /dev/null: no typescript.
    process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
    process.currentDirectoryURL = Fixtures.packageRoot
    let out = try FileHandle(forWritingTo: outURL)
    process.standardOutput = out
    process.standardInput = FileHandle.nullDevice
    try await process.runToExit()
    try out.close()
    return (process.terminationStatus, try Data(contentsOf: outURL), try String(contentsOf: errURL, encoding: .utf8))
}
