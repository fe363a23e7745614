import DouyinChat
import DouyinKit
import Foundation

/// `douyinkit ws echo <ws-or-wss-url> [--cacert <pem>] [--timeout S]`: the package's own
/// WebSocket client in echo mode, the client mode the Autobahn fuzzing server drives. Exits 0
/// once a closing handshake completed (whoever started it, whatever the code), 1 when the
/// connection ended without one, could not be opened, or S seconds passed (default: no limit),
/// with one line on stderr; 2 for a wrong command line.
enum WsEchoCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "ws", summary: "echo every WebSocket message back (the client the Autobahn suite drives)", usage: usage, run: run)

    static let usage = "usage: douyinkit ws echo <ws-or-wss-url> [--cacert <pem>] [--timeout S]"

    static func run(_ arguments: [String]) async throws {
        guard arguments.first == "echo" else { throw ToolError.usage(usage) }
        let line = try ChatCommandLine(arguments.dropFirst(), usage: usage, accepts: ["--timeout", "--cacert"])
        let url = line.url, timeout = line.seconds("--timeout")
        let transport = try ChatURL.transport(cacert: line.text("--cacert"))
        if let timeout {
            // The whole run is bounded: a server that never closes cannot hold the tool.
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                printError("error: timed out after \(timeout) s")
                exit(1)
            }
        }
        let outcome = await WebSocketEcho.run(url: url, transport: transport)
        if outcome.closedCleanly { exit(0) }
        let reason = outcome.error.map { TerminalText.escaped($0.description) } ?? "the connection ended without a closing handshake"
        throw ToolError.failed(reason)
    }
}
