import Foundation

/// The client half of an echo: sends back every message as it came (text as text, binary as
/// binary) until the connection closes. `douyinkit ws echo` runs it, and the Autobahn fuzzing
/// server drives it case by case (`/runCase?case=N&agent=…`).
package enum WebSocketEcho {
    /// How one echo run ended.
    package struct Outcome: Sendable, Hashable {
        /// Whether the connection ended as RFC 6455 says: a closing handshake completed (a close
        /// frame went each way), whoever started it and whatever the code, or the client failed
        /// the connection of a server that broke the protocol (its close frame sent, then TCP
        /// closed at once, §7.1.7).
        package var closedCleanly: Bool
        /// Messages echoed.
        package var echoed: Int
        /// Why the connection ended; `nil` when it ended without an error.
        package var error: ChatError?
    }

    /// Connects to `url` with `headers`, echoes until the connection ends, and says how it ended.
    package static func run(url: URL, headers: [String: String] = ["User-Agent": "douyinkit"],
                            transport: any WebSocketTransport) async -> Outcome {
        let connection: any WebSocketConnection
        do {
            connection = try await transport.connect(to: url, headers: headers)
        } catch {
            return Outcome(closedCleanly: false, echoed: 0, error: ChatError.from(error))
        }
        var echoed = 0
        var ending: ChatError?
        do {
            for try await message in connection.messages {
                // A send that fails means the connection is going; the read side says how.
                do {
                    try await connection.send(message)
                    echoed += 1
                } catch {}
            }
        } catch {
            ending = ChatError.from(error)
        }
        let clean: Bool
        if let posix = connection as? POSIXWebSocketConnection {
            clean = posix.closingHandshakeCompleted
        } else if case .closed? = ending {
            // URLSessionWebSocketTask answers a server's close itself.
            clean = true
        } else {
            clean = false
        }
        await connection.close(code: 1000, reason: "")
        return Outcome(closedCleanly: clean, echoed: echoed, error: ending)
    }
}
