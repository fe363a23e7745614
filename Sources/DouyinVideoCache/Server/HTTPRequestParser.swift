import Foundation

/// A request head as the proxy reads it: method, target, version and header fields.
package struct HTTPRequestHead: Sendable, Hashable {
    /// The method token as sent (`GET`, `HEAD`; case-sensitive per RFC 9110 §9.1).
    package var method: String
    /// The request target as sent (`/token/http%3A%2F%2F…`).
    package var target: String
    /// The minor HTTP version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    /// The header fields in order, names lowercased, values without surrounding whitespace.
    package var fields: [(name: String, value: String)]

    /// A head from its parts.
    package init(method: String, target: String, minorVersion: Int, fields: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.fields = fields
    }

    /// The first value of the field `name` (lowercase), `nil` when absent.
    package func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Whether the connection stays open after the answer: HTTP/1.1 unless `Connection:
    /// close`; HTTP/1.0 only with `Connection: keep-alive`.
    package var keepAlive: Bool {
        let tokens = (value("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingWhitespace() }
        return minorVersion >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    package static func == (lhs: HTTPRequestHead, rhs: HTTPRequestHead) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.minorVersion == rhs.minorVersion
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
    }
}

/// Splits the bytes a client sends into request heads, refusing what a well-behaved client
/// never sends before it can cost memory: a pure value, fed bytes, no socket.
///
/// The proxy serves GET and HEAD only: another method is refused with 405, and a GET or HEAD
/// carrying a body (`Content-Length` other than 0, any `Transfer-Encoding`) is refused rather
/// than skipped. Bytes after a head stay
/// buffered for the next request (pipelining).
package struct HTTPRequestParser: Sendable {
    /// What one step of parsing found.
    package enum Outcome: Sendable, Hashable {
        /// No complete head yet; feed more bytes.
        case needMore
        /// A complete head; its bytes are consumed.
        case request(HTTPRequestHead)
        /// The client sent something no answer but this status can follow; close afterwards.
        /// `431` for a head past the limit, `400` for a malformed one (at the first bad line
        /// ending, before the head is complete), `405` for a method other than GET and HEAD,
        /// `505` for HTTP/2+.
        case refuse(status: Int, reason: String)
    }

    /// The methods the proxy serves; any other is refused with 405.
    package static let servedMethods = ["GET", "HEAD"]
    /// The `Allow` field of a 405: the served methods, comma-separated.
    package static let allowedMethods = servedMethods.joined(separator: ", ")
    /// Why a 405 was answered.
    package static let methodRefusal = "only GET and HEAD are served"

    /// Bytes: the most a request head (request line and fields) may take. Default 16,384;
    /// players send well under 2 KB.
    package let maxHeadBytes: Int
    private var buffer: [UInt8] = []
    /// Where the search for the blank line resumes (bytes before it were searched already).
    private var searchFrom = 0

    /// A parser accepting heads of at most `maxHeadBytes` bytes.
    package init(maxHeadBytes: Int = 16_384) {
        self.maxHeadBytes = maxHeadBytes
    }

    /// Whether some bytes of a next head have arrived (a client mid-request, not idle).
    package var hasPartialHead: Bool { !buffer.isEmpty }

    /// Adds bytes as they arrived; call ``next()`` after.
    package mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }

    /// The next complete head, or what is wrong, or that more is needed.
    package mutating func next() -> Outcome {
        switch scan() {
        case .malformed:
            // At once: such a head can never end in the blank line it waits for, and silence
            // until the head deadline tells the client nothing.
            return .refuse(status: 400, reason: "malformed line ending")
        case .incomplete:
            // Past the limit only once the head itself is: the buffer may also hold the first
            // three bytes of the blank line (`\r\n\r`), so a head at the limit arriving a byte
            // at a time is not refused where one read of it is accepted (found by fuzzing).
            if buffer.count > maxHeadBytes + 3 { return .refuse(status: 431, reason: "request head over \(maxHeadBytes) bytes") }
            // The last byte again: a CR there is bare or not by the byte after it.
            searchFrom = max(0, buffer.count - 1)
            return .needMore
        case .end(let terminator, let bodyStart):
            guard terminator <= maxHeadBytes else {
                return .refuse(status: 431, reason: "request head over \(maxHeadBytes) bytes")
            }
            let head = Array(buffer[0..<terminator])
            buffer.removeFirst(bodyStart)
            searchFrom = 0
            return Self.parse(head)
        }
    }

    /// What the bytes from ``searchFrom`` on hold.
    private enum Scan {
        /// The blank line ending the head: where it starts, and the index after it.
        case end(terminator: Int, bodyStart: Int)
        /// A bare LF (no CR before it), a bare CR (no LF after it) or a NUL: RFC 9112 §2.2 lets a
        /// recipient take a bare LF as a line end, but this one refuses every ambiguity a
        /// smuggled request could hide in (bare CR and LF inside a head were refused already).
        case malformed
        /// Neither yet.
        case incomplete
    }

    private func scan() -> Scan {
        var index = searchFrom
        while index < buffer.count {
            switch buffer[index] {
            case 0:
                return .malformed
            case 13 where index + 1 < buffer.count && buffer[index + 1] != 10:
                return .malformed
            case 10:
                guard index > 0, buffer[index - 1] == 13 else { return .malformed }
                if index >= 3, buffer[index - 3] == 13, buffer[index - 2] == 10 { return .end(terminator: index - 3, bodyStart: index + 1) }
            default:
                break
            }
            index += 1
        }
        return .incomplete
    }

    private static func parse(_ head: [UInt8]) -> Outcome {
        // Bare CR or LF inside a line, and NUL anywhere, are refused (RFC 9112 §2.2 lets a
        // server reject them; request smuggling lives in such ambiguities).
        let lines = split(head)
        guard let requestLine = lines.first, lines.allSatisfy({ !$0.contains(0) && !$0.contains(13) && !$0.contains(10) }) else {
            return .refuse(status: 400, reason: "malformed line ending")
        }
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), isRequestTarget(parts[1]) else {
            return .refuse(status: 400, reason: "malformed request line")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/"), version.count == 8, version.dropFirst(6).first == "." else {
            return .refuse(status: 400, reason: "malformed HTTP version")
        }
        guard version.hasPrefix("HTTP/1."), let minor = Int(version.suffix(1)) else {
            return .refuse(status: 505, reason: "only HTTP/1.x is served")
        }
        // Before the body checks: a POST is refused for its method, with or without a body.
        guard servedMethods.contains(String(decoding: parts[0], as: UTF8.self)) else { return .refuse(status: 405, reason: methodRefusal) }
        // The asterisk form passed the target check for OPTIONS' 405 above; a GET of it is a 400.
        if parts[1].elementsEqual([UInt8(ascii: "*")]) { return .refuse(status: 400, reason: "malformed request line") }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 58), colon > line.startIndex, line[line.startIndex..<colon].allSatisfy(isTokenByte) else {
                // No colon, an empty name, whitespace before the colon, or an obsolete folded
                // line (starting with a space): RFC 9112 §5 says reject.
                return .refuse(status: 400, reason: "malformed header field")
            }
            // A field value is visible characters, obs-text, spaces and tabs (RFC 9110 §5.5):
            // another control character is refused, not passed on.
            guard line[(colon + 1)...].allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                return .refuse(status: 400, reason: "control character in a header field")
            }
            let name = String(decoding: line[line.startIndex..<colon].lazy.map(asciiLowercased), as: UTF8.self)
            fields.append((name, String(decoding: trimmingWhitespace(line[(colon + 1)...]), as: UTF8.self)))
        }
        let head = HTTPRequestHead(method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
                                   minorVersion: minor, fields: fields)
        if head.value("transfer-encoding") != nil || fields.contains(where: { $0.name == "content-length" && $0.value != "0" }) {
            return .refuse(status: 400, reason: "a request body is not accepted")
        }
        // RFC 9112 §3.2: a second Host, an invalid one, or none in HTTP/1.1 is a 400.
        let hosts = fields.filter { $0.name == "host" }
        if hosts.count > 1 || (minor >= 1 && hosts.isEmpty) {
            return .refuse(status: 400, reason: "HTTP/1.1 needs exactly one Host field")
        }
        if let host = hosts.first, !isHost(Array(host.value.utf8)) {
            return .refuse(status: 400, reason: "the Host field is not host[:port]")
        }
        return .request(head)
    }

    /// The head's lines, split at CRLF.
    private static func split(_ head: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 1 < head.count {
            if head[index] == 13, head[index + 1] == 10 {
                lines.append(head[start..<index])
                start = index + 2
                index += 2
            } else {
                index += 1
            }
        }
        lines.append(head[start..<head.count])
        return lines
    }

    /// An RFC 9112 §3.2 request-target the proxy can serve: origin-form (`/path?query`) or
    /// absolute-form (`scheme:…`), of URI characters only (RFC 3986: unreserved, sub-delims,
    /// `:@/?[]` and `%XX`), or the asterisk form (`*`, OPTIONS', refused after the method
    /// check); the authority form belongs to CONNECT.
    private static func isRequestTarget(_ target: ArraySlice<UInt8>) -> Bool {
        guard let first = target.first else { return false }
        if target.count == 1, first == UInt8(ascii: "*") { return true }
        if first != UInt8(ascii: "/") {
            // absolute-form: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
            guard isAlpha(first), let colon = target.firstIndex(of: UInt8(ascii: ":")),
                  target[..<colon].allSatisfy({ isAlpha($0) || isDigit($0) || Array("+-.".utf8).contains($0) }) else { return false }
        }
        var index = target.startIndex
        while index < target.endIndex {
            let byte = target[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < target.endIndex, isHexDigit(target[index + 1]), isHexDigit(target[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isUnreserved(byte) || isSubDelim(byte) || Array(":@/?[]".utf8).contains(byte) else { return false }
            index += 1
        }
        return true
    }

    /// An RFC 9112 §3.2 Host value: `uri-host [ ":" port ]`, where uri-host is an IP-literal
    /// (`[…]`) or a reg-name (unreserved, sub-delims, `%XX`) and port is digits.
    private static func isHost(_ value: [UInt8]) -> Bool {
        var host = value[...]
        var port: ArraySlice<UInt8> = []
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = host[(host.startIndex + 1)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isHexDigit($0) || isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }) else { return false }
            let rest = host[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { return false }
                port = rest.dropFirst()
            }
            host = []
        } else if let colon = host.firstIndex(of: UInt8(ascii: ":")) {
            port = host[(colon + 1)...]
            host = host[..<colon]
        }
        guard port.allSatisfy(isDigit) else { return false }
        var index = host.startIndex
        while index < host.endIndex {
            if host[index] == UInt8(ascii: "%") {
                guard index + 2 < host.endIndex, isHexDigit(host[index + 1]), isHexDigit(host[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isUnreserved(host[index]) || isSubDelim(host[index]) else { return false }
            index += 1
        }
        return true
    }

    /// `bytes` without the spaces and tabs around them (RFC 9110 §5.5's OWS): on bytes, since
    /// Foundation's trimming bridged every field through `NSString` (6 % of the proxy's CPU per
    /// request).
    private static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isWhitespace = { (byte: UInt8) in byte == 32 || byte == 9 }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }), let last = bytes.lastIndex(where: { !isWhitespace($0) }) else { return [] }
        return bytes[first...last]
    }

    /// An ASCII letter in lowercase; any other byte as it is (a field name is a token: ASCII).
    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }

    private static func isAlpha(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (65...70).contains(byte) || (97...102).contains(byte) }
    private static func isUnreserved(_ byte: UInt8) -> Bool { isAlpha(byte) || isDigit(byte) || Array("-._~".utf8).contains(byte) }
    private static func isSubDelim(_ byte: UInt8) -> Bool { Array("!$&'()*+,;=".utf8).contains(byte) }

    /// An RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension Substring {
    /// This text without the spaces and tabs around it (RFC 9110's OWS), without Foundation's
    /// `NSString` bridge: the proxy's request path runs it for every answer.
    package func trimmingWhitespace() -> Substring {
        let isWhitespace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }), let last = lastIndex(where: { !isWhitespace($0) }) else { return self[endIndex...] }
        return self[first...last]
    }
}
