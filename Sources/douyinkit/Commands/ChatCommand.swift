import DouyinChat
import DouyinKit
import Foundation

/// `douyinkit chat listen <ws-or-wss-url> [--udid U] [--count N] [--timeout S] [--cacert <pem>]`: prints each pushed
/// GroupChat once as `<id> <msg_type> <msg_content>`, state changes on stderr as `state=…`;
/// exits 0 after N distinct messages, 1 when S seconds pass first (without `--count`, 0 when the
/// S seconds are up), 1 at once when the connection gives up (a URL that cannot be opened, a
/// certificate that does not verify, a 4xx answer, a close with 1008). `--heartbeat`,
/// `--pong-timeout` and `--retry-cap` set the connection's ping interval (25 s), the wait for
/// its pong (10 s) and the longest backoff between attempts (60 s). Every text the server sent
/// (the three fields, close reasons, header values in errors) is printed through
/// ``TerminalText/escaped(_:)``. `--verbose` adds the connection's log events on stderr.
enum ChatCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "chat", summary: "listen to a group chat over WebSocket and print each message", usage: usage, run: run)

    static let usage = """
    usage: douyinkit chat listen <ws-or-wss-url> [--udid U] [--count N] [--timeout S] [--cacert <pem>] [--heartbeat S] [--pong-timeout S] [--retry-cap S] [--verbose]
      --udid: the visitor id sent in the upgrade's udid header (default \(defaultUDID))
      --cacert: trust this PEM file's certificates instead of the system store (Linux)
      --heartbeat, --pong-timeout, --retry-cap: seconds between pings (25), to wait for a pong (10), longest backoff (60)
      --verbose: the connection's log on stderr as `log: …` lines (connects, closes, each reconnect and its backoff, giving up)
    """
    /// The `udid` header sent when `--udid` is absent: the backend refuses an upgrade without
    /// one, and the usage showed the option as optional.
    static let defaultUDID = "douyinkit-cli"

    static func run(_ arguments: [String]) async throws {
        guard arguments.first == "listen" else { throw ToolError.usage(usage) }
        let line = try ChatCommandLine(arguments.dropFirst(), usage: usage,
                                       accepts: ["--udid", "--count", "--timeout", "--cacert", "--heartbeat", "--pong-timeout", "--retry-cap", "--verbose"])
        let url = line.url
        var configuration = ChatConnection.Configuration()
        if let heartbeat = line.duration("--heartbeat") { configuration.heartbeat = heartbeat }
        if let pongTimeout = line.duration("--pong-timeout") { configuration.pongTimeout = pongTimeout }
        if let cap = line.duration("--retry-cap") { configuration.reconnect.cap = cap }
        if configuration.reconnect.base > configuration.reconnect.cap { configuration.reconnect.base = configuration.reconnect.cap }
        if line.has("--verbose") {
            // The events carry the server's close reason: escaped like every other text of its.
            configuration.log = LogHandler { printError("log: " + TerminalText.escaped($0.description)) }
        }
        let connection = ChatConnection(url: url, udid: line.text("--udid") ?? defaultUDID, configuration: configuration,
                                        history: apiBaseURL(forPushURL: url).map { APIClient(baseURL: $0) },
                                        transport: try ChatURL.transport(cacert: line.text("--cacert")))
        let outcome = Outcome()
        let (wanted, limit) = (line.count("--count"), line.seconds("--timeout"))
        let timer = Task {
            guard let limit else { return }
            try? await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
            guard !Task.isCancelled else { return }
            // Without --count, listening until the time is up is the whole job: exit 0.
            if await outcome.settle(wanted == nil ? 0 : 1), wanted != nil { printError("timed out after \(limit) s") }
            connection.stop()
        }
        await listen(connection, count: wanted, outcome: outcome)
        timer.cancel()
        // Ended by itself: it gave up (retrying could not help), so the job failed.
        _ = await outcome.settle(1)
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

/// The URL argument of `chat listen` and `ws echo`, checked before anything connects: a URL that
/// can never be opened exits 2 with the problem on the first line and the usage after it.
enum ChatURL {
    static func parse(_ text: String, usage: String) throws -> URL {
        guard let url = URL(string: text) else {
            // Foundation may refuse a URL whose port does not fit 16 bits: name that problem.
            let authority = text.components(separatedBy: "://").dropFirst().first?.prefix { $0 != "/" && $0 != "?" && $0 != "#" } ?? ""
            if let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]), port > 65535 {
                throw ToolError.usage("cannot open \(TerminalText.escaped(text)): port \(port) is out of range (1-65535)\n" + usage)
            }
            throw ToolError.usage("not a URL: \(TerminalText.escaped(text))\n" + usage)
        }
        do {
            _ = try WebSocketEndpoint(url)
        } catch {
            throw ToolError.usage(TerminalText.escaped("\(error)") + "\n" + usage)
        }
        return url
    }

    /// The platform's transport; with `--cacert`, the package's own client trusting that PEM
    /// file instead of the system store (Linux; URLSession on Apple has no such option).
    static func transport(cacert path: String?) throws -> any WebSocketTransport {
        guard let path else { return WebSocketTransports.platformDefault }
        // Through the tool's one reader: a FIFO or a device here hung the tool or filled memory.
        let pem = try InputFile.read(path)
        #if canImport(Darwin)
        throw ToolError.failed("--cacert is not available on Apple platforms: URLSessionWebSocketTask trusts the system store")
        #else
        return POSIXWebSocketTransport(configuration: .init(trustedCertificates: pem))
        #endif
    }
}
