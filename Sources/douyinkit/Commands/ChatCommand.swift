import DouyinKit
import Foundation

/// `douyinkit chat listen <ws-url> [--udid U] [--count N] [--timeout S]`: prints each pushed
/// GroupChat once as `<id> <msg_type> <msg_content>`, state changes on stderr as `state=…`;
/// exits 0 after N distinct messages, 1 when S seconds pass first. Every text the server sent
/// (the three fields, close reasons, header values in errors) is printed through
/// ``TerminalText/escaped(_:)``.
enum ChatCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "chat", summary: "listen to a group chat over WebSocket and print each message", usage: usage, run: run)

    static let usage = "usage: douyinkit chat listen <ws-url> [--udid U] [--count N] [--timeout S]\n  --udid: the visitor id sent in the upgrade's udid header (default \(defaultUDID))"
    /// The `udid` header sent when `--udid` is absent: the backend refuses an upgrade without
    /// one, and the usage showed the option as optional.
    static let defaultUDID = "douyinkit-cli"

    static func run(_ arguments: [String]) async throws {
        guard arguments.first == "listen" else { throw ToolError.usage(usage) }
        var urlText: String?
        var udid: String?
        var count: Int?
        var timeout: Double?
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--udid":
                guard let value = rest.popFirst() else { throw ToolError.usage(usage) }
                udid = value
            case "--count":
                guard let value = rest.popFirst(), let number = Int(value), number > 0 else { throw ToolError.usage("--count takes a whole number above 0\n" + usage) }
                count = number
            case "--timeout":
                guard let value = rest.popFirst(), let seconds = Double(value), seconds > 0, seconds.isFinite else { throw ToolError.usage("--timeout takes seconds above 0\n" + usage) }
                timeout = seconds
            default:
                guard urlText == nil, !argument.hasPrefix("--") else { throw ToolError.usage(usage) }
                urlText = argument
            }
        }
        guard let urlText, let url = URL(string: urlText), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss", url.host != nil else {
            throw ToolError.usage("expected a ws:// URL\n" + usage)
        }
        let connection = ChatConnection(url: url, udid: udid ?? defaultUDID, history: apiBaseURL(forPushURL: url).map { APIClient(baseURL: $0) })
        let outcome = Outcome()
        let (wanted, limit) = (count, timeout)
        let timer = Task {
            guard let limit else { return }
            try? await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
            guard !Task.isCancelled else { return }
            if await outcome.settle(1) { printError("timed out after \(limit) s") }
            connection.stop()
        }
        await listen(connection, count: wanted, outcome: outcome)
        timer.cancel()
        // Ended by itself (gave up): 1 when messages were awaited, else 0.
        _ = await outcome.settle(wanted == nil ? 0 : 1)
        exit(await outcome.code ?? 1)
    }

    /// The API's `http(s)://HOST:PORT/douyin/` base beside a `ws(s)://HOST:PORT/douyin/groupchat`
    /// push URL, where the gap fill after a reconnect asks `groupchat/list`.
    static func apiBaseURL(forPushURL pushURL: URL) -> URL? {
        guard var components = URLComponents(url: pushURL, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme?.lowercased() == "wss" ? "https" : "http"
        var path = components.path
        if path.hasSuffix("/groupchat") { path.removeLast("groupchat".count) }
        if !path.hasSuffix("/") { path += "/" }
        components.path = path
        components.query = nil
        return components.url
    }

    /// The exit status, decided once: by the count, the timeout or the connection's end.
    actor Outcome {
        var code: Int32?
        /// Sets the status if none was set; returns whether this call set it.
        func settle(_ value: Int32) -> Bool {
            guard code == nil else { return false }
            code = value
            return true
        }
    }

    /// Prints events until the connection ends: stopped after `count` distinct messages, by the
    /// timeout, or given up.
    static func listen(_ connection: ChatConnection, count: Int?, outcome: Outcome) async {
        connection.start()
        var printed = 0
        for await event in connection.events {
            switch event {
            case .state(let state):
                if case .gaveUp(let error) = state {
                    printError("error: gave up: \(TerminalText.escaped(error.description))")
                    printError("state=closed")
                } else {
                    printError("state=\(state)")
                }
            case .message(let chat):
                guard printed < count ?? .max else { continue }
                // Every field is the server's: none may end the line or reach the terminal raw.
                let line = [chat.id, chat.msgType.rawValue, chat.msgContent].map(TerminalText.escaped).joined(separator: " ") + "\n"
                FileHandle.standardOutput.write(Data(line.utf8))
                printed += 1
                if let count, printed == count {
                    _ = await outcome.settle(0)
                    connection.stop()
                }
            case .error(let error):
                printError("error: \(TerminalText.escaped(error.description))")
            }
        }
    }
}
