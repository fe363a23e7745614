/// The server's answer to the opening handshake, parsed and checked against RFC 6455 §4.1: a
/// pure value (no socket), so every rule is tested on its own and through a real server.
///
/// The client fails the connection when:
/// - the status line is not `HTTP/1.x` with a three-digit status (`+101` is no status);
/// - the status is not 101 (``ChatError/handshakeRejected(status:reason:)``);
/// - a header line is malformed: no colon, whitespace before the colon, a bare CR or LF, or a continuation
///   line before the first field (RFC 9112 §5.1: a smuggling vector); a continuation line
///   after a field (obsolete folding) is joined to it with a space, as §5.2 says;
/// - `Upgrade` is not `websocket` (compared ignoring ASCII case), or `Connection` holds no
///   `upgrade` token (ignoring case);
/// - `Sec-WebSocket-Accept` is not exactly the key's SHA-1 answer (a field sent twice is
///   joined with `, ` as HTTP says, and so never matches);
/// - `Sec-WebSocket-Extensions` is present when the client offered none, or is anything but
///   one permessage-deflate with parameters the client can honour (``DeflateNegotiation``);
/// - `Sec-WebSocket-Protocol` is present when the client offered none, or names anything but
///   exactly one of the protocols it offered.
package struct HandshakeAnswer: Sendable, Hashable {
    /// The status code of the answer.
    package let status: Int
    /// The reason phrase after the status, as sent; empty when none.
    package let reason: String
    /// Each header field by lower-cased name; a repeated field's values joined with `, `.
    package let fields: [String: String]

    /// Parses the answer's head: the text before the blank line, lines split at CRLF.
    package init(head: String) throws(ChatError) {
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        // HTTP-version is `HTTP/1.` and one digit; the reason phrase is text (RFC 9112 §4). A
        // reason phrase that is not only decides nothing for a refusal (its status does, and the
        // phrase is escaped wherever it is shown), but a 101 must be whole to open.
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[0].utf8.count == 8, parts[0].utf8.last.map({ (0x30...0x39).contains($0) }) == true,
              parts[1].utf8.count == 3, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let status = Int(parts[1]),
              status != 101 || parts.count < 3 || parts[2].unicodeScalars.allSatisfy(Self.isFieldText) else {
            throw .handshakeInvalid("bad status line \"\(statusLine.prefix(80))\"")
        }
        self.status = status
        reason = parts.count > 2 ? String(parts[2]) : ""
        var fields: [String: String] = [:]
        var last: String?
        for line in lines {
            // Lines end at CRLF only: a bare CR or LF left inside one is a framing trick.
            guard !line.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .handshakeInvalid("a bare CR or LF inside a header line")
            }
            // A control character (NUL, DEL, …) in a name or value is refused, as RFC 9110 §5.5
            // and §5.6.2 allow none: found by the handshake fuzz target in both.
            guard line.unicodeScalars.allSatisfy(Self.isFieldText) else {
                throw .handshakeInvalid("a control character in a header line")
            }
            if line.unicodeScalars.first == " " || line.unicodeScalars.first == "\t" {
                guard let name = last else { throw .handshakeInvalid("a continuation line before the first header field") }
                fields[name, default: ""] += " " + line.trimmingCharacters(in: [" ", "\t"])
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw .handshakeInvalid("header line without a colon: \"\(line.prefix(80))\"") }
            let name = line[..<colon]
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenScalar) else {
                throw .handshakeInvalid("malformed header name \"\(name.prefix(80))\"")
            }
            let key = name.lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            fields[key] = fields[key].map { $0 + ", " + value } ?? value
            last = key
        }
        self.fields = fields
    }

    /// Checks the answer to a request that sent `key`, offered `protocols` (empty: none) and,
    /// with `offeredDeflate`, permessage-deflate; returns the protocol the server chose, `nil`
    /// when it chose none (``deflate`` says what it made of the offer).
    package func validate(key: String, protocols: [String], offeredDeflate: Bool = false) throws(ChatError) -> String? {
        guard status == 101 else { throw .handshakeRejected(status: status, reason: reason) }
        guard let upgrade = fields["upgrade"], upgrade.lowercased() == "websocket" else {
            throw .handshakeInvalid("Upgrade is \(Self.quoted(fields["upgrade"])), not websocket")
        }
        let connection = fields["connection"]?.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: [" ", "\t"]) } ?? []
        guard connection.contains("upgrade") else {
            throw .handshakeInvalid("Connection is \(Self.quoted(fields["connection"])), without the upgrade token")
        }
        guard fields["sec-websocket-accept"] == Handshake.accept(for: key) else {
            throw .handshakeInvalid("Sec-WebSocket-Accept \(Self.quoted(fields["sec-websocket-accept"])) does not match the key")
        }
        if let extensions = fields["sec-websocket-extensions"] {
            guard offeredDeflate else { throw .handshakeInvalid("the server chose extensions the client did not offer: \"\(extensions)\"") }
            _ = try DeflateNegotiation.accepted(extensions)
        }
        guard let chosen = fields["sec-websocket-protocol"] else { return nil }
        guard protocols.contains(chosen) else {
            let offered = protocols.isEmpty ? "none was offered" : "offered: \(protocols.joined(separator: ", "))"
            throw .handshakeInvalid("the server chose the subprotocol \"\(chosen)\" (\(offered))")
        }
        return chosen
    }

    /// The permessage-deflate parameters the server accepted; `nil` when it accepted none.
    /// Call after ``validate(key:protocols:offeredDeflate:)``.
    package var deflate: DeflateNegotiation? {
        get throws(ChatError) { try DeflateNegotiation.accepted(fields["sec-websocket-extensions"]) }
    }

    /// The protocols a request's `headers` offer in `Sec-WebSocket-Protocol` (any case of the
    /// name), in order; empty when it offers none.
    package static func offeredProtocols(in headers: [String: String]) -> [String] {
        headers.filter { $0.key.lowercased() == "sec-websocket-protocol" }
            .sorted { $0.key < $1.key }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingCharacters(in: [" ", "\t"]) } }
            .filter { !$0.isEmpty }
    }

    /// What a field value or reason phrase may hold: HTAB, SP, visible characters, obs-text.
    static func isFieldText(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F)
    }

    /// An RFC 9110 `tchar`.
    static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }

    private static func quoted(_ value: String?) -> String {
        value.map { "\"\($0.prefix(80))\"" } ?? "missing"
    }
}
