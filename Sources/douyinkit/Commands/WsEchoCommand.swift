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
        var urlText: String?
        var timeout: Double?
        var cacert: String?
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--timeout":
                guard let value = rest.popFirst(), let seconds = Double(value), seconds > 0, seconds.isFinite else { throw ToolError.usage("--timeout takes seconds above 0\n" + usage) }
                timeout = seconds
            case "--cacert":
                guard let value = rest.popFirst() else { throw ToolError.usage("--cacert takes a PEM file\n" + usage) }
                cacert = value
            default:
                guard urlText == nil, !argument.hasPrefix("--") else { throw ToolError.usage(usage) }
                urlText = argument
            }
        }
        guard let urlText else { throw ToolError.usage("missing the ws:// or wss:// URL\n" + usage) }
        let url = try ChatURL.parse(urlText, usage: usage)
        let transport = try ChatURL.transport(cacert: cacert)
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
