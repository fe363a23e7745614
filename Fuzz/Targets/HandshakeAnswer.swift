// The WebSocket opening handshake's answer (DouyinChat's HandshakeAnswer and
// DeflateNegotiation), against a reference written from RFC 6455 §4.1 and §9.1, RFC 7692 §7
// and RFC 9112 §4-§5. Property: the client opens exactly when the reference says a valid 101
// answered its request (the right accept key, only what it offered), and then with the same
// subprotocol and deflate parameters.
//
// Input: byte 0 bit 0: the client offered permessage-deflate; bit 1: it offered the
// subprotocols "chat" and "superchat"; the rest is the answer's head (before the blank line).
@testable import DouyinChat
import Foundation

/// RFC 6455 §1.3's example: this key's answer is the accept value below.
private let key = "dGhlIHNhbXBsZSBub25jZQ=="
private let acceptValue = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

@_cdecl("LLVMFuzzerTestOneInput")
public func handshakeAnswerFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let input = bytes(data, count)
    let offeredDeflate = input[0] & 1 != 0
    let protocols = input[0] & 2 != 0 ? ["chat", "superchat"] : []
    let head = String(decoding: input.dropFirst(), as: UTF8.self)
    var opened: String?
    do {
        let answer = try HandshakeAnswer(head: head)
        let chosen = try answer.validate(key: key, protocols: protocols, offeredDeflate: offeredDeflate)
        let deflate = try answer.deflate
        opened = "protocol \(chosen ?? "none") deflate \(deflate.map(describe) ?? "none")"
    } catch {}
    let expected = reference(Array(head.utf8), offeredDeflate: offeredDeflate, protocols: protocols)
    require(opened == expected, "opened: \(opened ?? "no"), RFC reference: \(expected ?? "no")")
    return 0
}

private func describe(_ deflate: DeflateNegotiation) -> String {
    "\(deflate.serverNoContextTakeover) \(deflate.serverMaxWindowBits) \(deflate.clientMaxWindowBits)"
}

// MARK: - The reference

private func isTchar(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
}

private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var bytes = bytes
    while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
    while let last = bytes.last, last == 32 || last == 9 { bytes = bytes.dropLast() }
    return bytes
}

private func lowered(_ bytes: some Sequence<UInt8>) -> String {
    String(decoding: bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

/// What opening with this answer means, or nil when the client must fail the connection.
private func reference(_ head: [UInt8], offeredDeflate: Bool, protocols: [String]) -> String? {
    // Lines end at CRLF; a CR or LF alone, or a NUL, is malformed.
    var lines: [ArraySlice<UInt8>] = []
    var start = 0, index = 0
    while index < head.count {
        if head[index] == 13, index + 1 < head.count, head[index + 1] == 10 {
            lines.append(head[start..<index])
            index += 2
            start = index
        } else {
            index += 1
        }
    }
    lines.append(head[start...])
    guard !lines.contains(where: { $0.contains(13) || $0.contains(10) || $0.contains(0) }) else { return nil }
    // status-line = HTTP-version SP status-code [SP reason-phrase]; HTTP/1.x, status 101; the
    // reason phrase is HTAB, SP, VCHAR and obs-text (RFC 9112 §4).
    let status = lines[0]
    guard status.count >= 12, status.starts(with: Array("HTTP/1.".utf8)), (48...57).contains(status[status.startIndex + 7]),
          status[status.startIndex + 8] == 32, status.dropFirst(9).prefix(3).elementsEqual(Array("101".utf8)),
          status.count == 12 || status[status.startIndex + 12] == 32,
          status.dropFirst(12).allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else { return nil }
    // field-line = field-name ":" OWS field-value OWS; obs-fold joins a line to the one before.
    var fields: [(name: String, value: [UInt8])] = []
    for line in lines.dropFirst() {
        if line.first == 32 || line.first == 9 {
            guard !fields.isEmpty else { return nil }
            fields[fields.count - 1].value += [32] + trimmed(line)
            continue
        }
        guard let colon = line.firstIndex(of: 58), colon > line.startIndex, line[..<colon].allSatisfy(isTchar) else { return nil }
        fields.append((lowered(line[..<colon]), Array(trimmed(line[(colon + 1)...]))))
    }
    // Field values: visible characters, obs-text, spaces and tabs.
    guard fields.allSatisfy({ $0.value.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) } }) else { return nil }
    // A field sent twice means its values joined by ", ".
    func value(_ name: String) -> [UInt8]? {
        let values = fields.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : Array(values.joined(separator: Array(", ".utf8)))
    }
    guard let upgrade = value("upgrade"), lowered(upgrade) == "websocket" else { return nil }
    guard let connection = value("connection"),
          connection.split(separator: 44, omittingEmptySubsequences: false).contains(where: { lowered(trimmed($0)) == "upgrade" }) else { return nil }
    guard value("sec-websocket-accept").map({ String(decoding: $0, as: UTF8.self) }) == acceptValue else { return nil }
    var deflate = "none"
    if let extensions = value("sec-websocket-extensions") {
        guard offeredDeflate, let parameters = permessageDeflate(extensions) else { return nil }
        deflate = parameters
    }
    var chosen = "none"
    if let name = value("sec-websocket-protocol") {
        let text = String(decoding: name, as: UTF8.self)
        guard protocols.contains(text) else { return nil }
        chosen = text
    }
    return "protocol \(chosen) deflate \(deflate)"
}

/// One `permessage-deflate` with parameters a client that offered
/// `client_no_context_takeover; client_max_window_bits` can honour (RFC 7692 §7.1): each at
/// most once, `server_no_context_takeover` and `client_no_context_takeover` without a value,
/// the window bits with a value 8-15 (a token, or a quoted string of one).
private func permessageDeflate(_ value: [UInt8]) -> String? {
    guard !value.contains(44) else { return nil }
    let parts = value.split(separator: 59, omittingEmptySubsequences: false).map(trimmed)
    guard lowered(parts[0]) == "permessage-deflate" else { return nil }
    var serverReset = false, serverBits = 15, clientBits = 15
    var seen: Set<String> = []
    for part in parts.dropFirst() {
        let pieces = part.split(separator: 61, maxSplits: 1, omittingEmptySubsequences: false).map(trimmed)
        let name = lowered(pieces[0])
        guard !pieces[0].isEmpty, pieces[0].allSatisfy(isTchar), seen.insert(name).inserted else { return nil }
        var bits: Int?
        if pieces.count == 2 {
            var text = pieces[1]
            if text.count >= 2, text.first == 34, text.last == 34 { text = text.dropFirst().dropLast() }
            guard text.count == 1 || text.count == 2, text.allSatisfy({ (48...57).contains($0) }), text.first != 48,
                  let number = Int(String(decoding: text, as: UTF8.self)), (8...15).contains(number) else { return nil }
            bits = number
        }
        switch (name, bits) {
        case ("server_no_context_takeover", nil): serverReset = true
        case ("client_no_context_takeover", nil): break
        case ("server_max_window_bits", let bits?): serverBits = bits
        case ("client_max_window_bits", let bits?): clientBits = bits
        default: return nil
        }
    }
    return "\(serverReset) \(serverBits) \(clientBits)"
}
