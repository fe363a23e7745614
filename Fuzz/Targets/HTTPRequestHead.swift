// The proxy's request head parser (DouyinVideoCache's HTTPRequestParser) against a reference
// written from RFC 9112's grammar as regular expressions. Properties: the parser accepts exactly
// the heads the reference accepts, with the same parts; the outcome does not depend on how the
// bytes were split into reads; an accepted head re-serialised parses to the same request.
import DouyinVideoCache
import Foundation

private let maxHeadBytes = 512

@_cdecl("LLVMFuzzerTestOneInput")
public func httpRequestHeadFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = bytes(data, count)
    let whole = run(input, readSize: max(1, input.count))
    let byteByByte = run(input, readSize: 1)
    require(whole.requests.elementsEqual(byteByByte.requests, by: same) && whole.refused == byteByByte.refused,
            "reads of one byte gave \(byteByByte), one read gave \(whole)")
    let expected = reference(input)
    require(whole.requests.elementsEqual(expected.requests, by: same) && whole.refused == expected.refused,
            "parser gave \(whole), RFC 9112 reference \(expected)")
    for head in whole.requests {
        var parser = HTTPRequestParser(maxHeadBytes: 1 << 20)
        parser.append(serialised(head))
        guard case .request(let again) = parser.next() else { require(false, "\(head) re-serialised is refused"); return 0 }
        require(same(again, head), "\(head) re-serialised parses as \(again)")
    }
    return 0
}

private struct Outcomes: CustomStringConvertible {
    var requests: [HTTPRequestHead] = []
    var refused = false
    var description: String { "\(requests.map { "\($0.method) \($0.target) 1.\($0.minorVersion) \($0.fields)" }) refused: \(refused)" }
}

/// Every head and whether the connection ended in a refusal, feeding `readSize` bytes at a time.
private func run(_ input: [UInt8], readSize: Int) -> Outcomes {
    var parser = HTTPRequestParser(maxHeadBytes: maxHeadBytes)
    var outcomes = Outcomes()
    var start = 0
    while start < input.count {
        parser.append(Array(input[start..<min(start + readSize, input.count)]))
        start += readSize
        while true {
            switch parser.next() {
            case .needMore: break
            case .request(let head): outcomes.requests.append(head); continue
            case .refuse: outcomes.refused = true; return outcomes
            }
            break
        }
    }
    return outcomes
}

private func same(_ a: HTTPRequestHead, _ b: HTTPRequestHead) -> Bool {
    a.method == b.method && a.target == b.target && a.minorVersion == b.minorVersion
        && a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
}

private func serialised(_ head: HTTPRequestHead) -> [UInt8] {
    var text = "\(head.method) \(head.target) HTTP/1.\(head.minorVersion)\r\n"
    for field in head.fields { text += "\(field.name): \(field.value)\r\n" }
    return Array((text + "\r\n").utf8)
}

// MARK: - The reference: RFC 9112 §2-§5 and RFC 3986 as regular expressions over bytes

private let tchar = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]"
private let uriChar = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@/?\\[\\]]|%[0-9A-Fa-f]{2})"
// nonisolated(unsafe): built once, only read, and libFuzzer calls the target from one thread.
nonisolated(unsafe) private let requestLine = try! Regex(
    "(\(tchar)+) ((?:/|[A-Za-z][A-Za-z0-9+\\-.]*:)\(uriChar)*) HTTP/([0-9])\\.([0-9])").matchingSemantics(.unicodeScalar)
nonisolated(unsafe) private let fieldLine = try! Regex(
    "(\(tchar)+):[ \\t]*([\\t\\x{20}-\\x{7E}\\x{80}-\\x{FF}]*?)[ \\t]*").matchingSemantics(.unicodeScalar)
nonisolated(unsafe) private let hostValue = try! Regex(
    "(?:\\[[0-9A-Za-z\\-._~!$&'()*+,;=:]+\\]|(?:[A-Za-z0-9\\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?").matchingSemantics(.unicodeScalar)

/// What RFC 9112 lets this proxy accept from `input`: heads end at the first CRLF CRLF; a NUL,
/// a CR without LF or an LF without CR anywhere, a head over the limit, or a head that is not
/// a GET or HEAD request line with valid fields (one valid Host, none in 1.0 allowed, no body)
/// ends the connection.
private func reference(_ input: [UInt8]) -> Outcomes {
    var outcomes = Outcomes()
    var rest = input[...]
    while !rest.isEmpty {
        let text = latin1(rest)
        guard let end = text.unicodeScalars.firstRange(of: "\r\n\r\n".unicodeScalars) else {
            // No end yet: refused already when a line ending is bad or the head is too long.
            let pending = text.unicodeScalars.last == "\r" ? String(text.unicodeScalars.dropLast()) : text
            // Too long once even the head without its blank line's first bytes (CR LF CR) is.
            if hasBadLineEnding(pending) || rest.count > maxHeadBytes + 3 { outcomes.refused = true }
            return outcomes
        }
        let headLength = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: end.lowerBound)
        let head = String(text.unicodeScalars[..<end.lowerBound])
        guard !hasBadLineEnding(head), headLength <= maxHeadBytes, let request = request(head) else {
            outcomes.refused = true
            return outcomes
        }
        outcomes.requests.append(request)
        rest = rest.dropFirst(headLength + 4)
    }
    return outcomes
}

private func hasBadLineEnding(_ text: String) -> Bool {
    let scalars = Array(text.unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
        if scalar == "\0" { return true }
        if scalar == "\r", index + 1 == scalars.count || scalars[index + 1] != "\n" { return true }
        if scalar == "\n", index == 0 || scalars[index - 1] != "\r" { return true }
    }
    return false
}

private func request(_ head: String) -> HTTPRequestHead? {
    let lines = head.components(separatedBy: "\r\n")
    guard let line = try? requestLine.wholeMatch(in: lines[0]),
          let method = line.output[1].substring, let target = line.output[2].substring,
          line.output[3].substring == "1", let minor = line.output[4].substring.flatMap({ Int($0) }),
          method == "GET" || method == "HEAD" else { return nil }
    var fields: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
        guard let field = try? fieldLine.wholeMatch(in: line), let name = field.output[1].substring,
              let value = field.output[2].substring else { return nil }
        // Back to the bytes sent, read as UTF-8 as the parser does.
        let raw = value.unicodeScalars.map { UInt8($0.value) }
        fields.append((name.lowercased(), String(decoding: raw, as: UTF8.self)))
    }
    if fields.contains(where: { $0.name == "transfer-encoding" || ($0.name == "content-length" && $0.value != "0") }) { return nil }
    let hosts = fields.filter { $0.name == "host" }
    guard hosts.count <= 1, minor == 0 || hosts.count == 1 else { return nil }
    if let host = hosts.first, (try? hostValue.wholeMatch(in: host.value)) == nil { return nil }
    return HTTPRequestHead(method: String(method), target: String(target), minorVersion: minor, fields: fields)
}
