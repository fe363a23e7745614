/// permessage-deflate (RFC 7692) as the client negotiates it: what it offers, and what the
/// server's `Sec-WebSocket-Extensions` answer means. A pure value; the codec is
/// ``MessageDeflate``.
///
/// The offer is `permessage-deflate; client_no_context_takeover; client_max_window_bits`: the
/// client lets the server cap its window and resets its own compressor after every message (so
/// a server may keep no state for it, §7.1.1.2); the server's side keeps its context unless it
/// answers `server_no_context_takeover`.
package struct DeflateNegotiation: Sendable, Hashable {
    /// The `Sec-WebSocket-Extensions` value the client sends.
    package static let offer = "permessage-deflate; client_no_context_takeover; client_max_window_bits"

    /// The server resets its compressor after each message: the client resets its decompressor.
    package var serverNoContextTakeover = false
    /// The window the server compresses with, in bits (8-15); 15 when it names none.
    package var serverMaxWindowBits = 15
    /// The window the client may compress with, in bits (8-15); 15 when the server names none.
    package var clientMaxWindowBits = 15

    /// RFC 7692's defaults: context takeover both ways, 15-bit windows.
    package init() {}

    /// The parameters the server's answer `header` accepted; `nil` when it accepted none
    /// (no header; an empty one is an extension not offered). Throws ``ChatError/handshakeInvalid(_:)`` for an extension other than
    /// permessage-deflate, a second one, an unknown or repeated parameter, or a value out of
    /// 8-15 (§7.1: the client must fail the connection).
    package static func accepted(_ header: String?) throws(ChatError) -> DeflateNegotiation? {
        guard let header else { return nil }
        let extensions = header.split(separator: ",", omittingEmptySubsequences: false)
        guard extensions.count == 1 else { throw .handshakeInvalid("the server accepted more than one extension: \"\(header.prefix(120))\"") }
        var parts = extensions[0].split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: [" ", "\t"]) }
        guard parts.removeFirst().lowercased() == "permessage-deflate" else {
            throw .handshakeInvalid("the server chose extensions the client did not offer: \"\(header.prefix(120))\"")
        }
        var result = DeflateNegotiation()
        var seen = Set<String>()
        for part in parts {
            // `name[=value]`, the value a token or one quoted string (RFC 6455 §9.1): `name=`
            // and unbalanced quotes are refused (found by the handshake fuzz target).
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: [" ", "\t"]) }
            guard let first = pair.first, !first.isEmpty, first.unicodeScalars.allSatisfy(HandshakeAnswer.isTokenScalar) else {
                throw .handshakeInvalid("an empty or malformed permessage-deflate parameter in \"\(header.prefix(120))\"")
            }
            let name = first.lowercased()
            guard seen.insert(name).inserted else { throw .handshakeInvalid("permessage-deflate parameter \(name) given twice") }
            var value = pair.count > 1 ? pair[1] : nil
            if let quoted = value, quoted.utf8.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") { value = String(quoted.dropFirst().dropLast()) }
            switch (name, value) {
            case ("server_no_context_takeover", nil): result.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): break // the client resets anyway
            case ("server_max_window_bits", let value?): result.serverMaxWindowBits = try bits(value, name)
            case ("client_max_window_bits", let value?): result.clientMaxWindowBits = try bits(value, name)
            default: throw .handshakeInvalid("permessage-deflate parameter \"\(part.prefix(60))\" is not one the client can accept")
            }
        }
        return result
    }

    private static func bits(_ value: String, _ name: String) throws(ChatError) -> Int {
        guard value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let bits = Int(value), (8...15).contains(bits), !value.hasPrefix("0") else {
            throw .handshakeInvalid("permessage-deflate \(name)=\(value.prefix(20)) is not 8-15")
        }
        return bits
    }
}
