// The response framing rules: DouyinSupport's ResponseFraming (Content-Length, and
// Transfer-Encoding beside it) and DouyinVideoCache's OriginAnswer, ContentRange and
// BodyFraming (a 206's Content-Range against the request, the body's bytes against the head),
// against a reference written from RFC 9110 §8.6 and §14.4 and RFC 9112 §6.3. A chunked body
// is decoded by libcurl, below these rules; what they see of it is its Transfer-Encoding.
//
// Input: lines of text: status, Content-Length, Transfer-Encoding, Content-Range, the request's
// first and last byte ("a-b"), then body chunk sizes ("3,5,2"); a line "!" (or a missing one)
// is an absent field.
import DouyinSupport
@testable import DouyinVideoCache
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func responseFramingFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let lines = bytes(data, count).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    func line(_ index: Int) -> String? { index < lines.count && lines[index] != "!" ? lines[index] : nil }
    let status = line(0).flatMap { Int($0) } ?? 206
    let contentLength = line(1), transferEncoding = line(2), contentRange = line(3)
    let bounds = (line(4) ?? "0-99").split(separator: "-").compactMap { Int64($0) }
    guard bounds.count == 2, bounds[0] >= 0, bounds[0] < bounds[1], bounds[1] < 1 << 41 else { return 0 }
    let requested = bounds[0]..<(bounds[1] + 1)
    let chunks = (line(5) ?? "").split(separator: ",").compactMap { Int($0) }.filter { (0...(1 << 20)).contains($0) }

    // ResponseFraming.declaredLength.
    let declared = ResponseFraming.declaredLength(contentLength: contentLength, transferEncoding: transferEncoding)
    let expectedLength = referenceDeclaredLength(contentLength: contentLength, transferEncoding: transferEncoding)
    switch (declared, expectedLength) {
    case (.success(let got), .some(let want)): require(got == want, "Content-Length \(String(reflecting: contentLength)): \(String(describing: got)), reference \(String(describing: want))")
    case (.failure, .none): break
    default: require(false, "Content-Length \(String(reflecting: contentLength)), Transfer-Encoding \(String(reflecting: transferEncoding)): \(declared), reference \(String(describing: expectedLength))")
    }

    // OriginAnswer.parse and the body framing it sets.
    var headers: [String: String] = [:]
    headers["content-length"] = contentLength
    headers["transfer-encoding"] = transferEncoding
    headers["content-range"] = contentRange
    let request = OriginRequest(url: URL(string: "http://origin.test/v.mp4")!, range: requested)
    let answer = try? OriginAnswer.parse(status: status, headers: headers, for: request)
    let expected = referenceAnswer(status: status, headers: headers, requested: requested)
    require(answer?.framingEnds == expected?.framingEnds, "\(status) \(headers) for \(requested): \(String(describing: answer)), reference \(String(describing: expected))")
    guard var framing = answer?.framing else { return 0 }
    // The body: every byte taken lies inside what the head named; the first byte past it is refused.
    let room = (framing.end ?? ResourceMetadata.maxLength) - framing.offset
    var taken: Int64 = 0
    for chunk in chunks {
        let before = framing.offset
        if let range = try? framing.take(chunk) {
            require(range.lowerBound == before && range.count == chunk && taken + Int64(chunk) <= room, "took \(range) after \(taken) of \(room)")
            taken += Int64(chunk)
        } else {
            require(taken + Int64(chunk) > room, "refused \(chunk) bytes after \(taken) of \(room)")
            break
        }
    }
    return 0
}

private extension OriginAnswer {
    /// What the answer lets a body be: where it starts, where it must end, the length told.
    var framingEnds: String {
        switch self {
        case .partial(let range, let info): "206 \(range) of \(String(describing: info.length))"
        case .whole(let info): "200 \(String(describing: info.length))"
        case .unsatisfiable(let length): "416 \(String(describing: length))"
        }
    }
}

// MARK: - The reference

/// OWS around a value is spaces and tabs only (RFC 9110 §5.6.3).
private func trimmed(_ text: String) -> [UInt8] {
    var bytes = Array(text.utf8)[...]
    while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
    while let last = bytes.last, last == 32 || last == 9 { bytes = bytes.dropLast() }
    return Array(bytes)
}

/// 1*DIGIT, read as a number when it has at most `digits` digits and is at most `maximum`.
private func number(_ bytes: some Collection<UInt8>, digits: Int, maximum: Int64) -> Int64? {
    guard !bytes.isEmpty, bytes.count <= digits, bytes.allSatisfy({ (48...57).contains($0) }) else { return nil }
    var value: Int64 = 0
    for byte in bytes {
        let (times, overflow) = value.multipliedReportingOverflow(by: 10)
        let (sum, carry) = times.addingReportingOverflow(Int64(byte - 48))
        guard !overflow, !carry else { return nil }
        value = sum
    }
    return value <= maximum ? value : nil
}

/// `.some(length)` when accepted, `nil` when refused: RFC 9112 §6.3 (Transfer-Encoding beside
/// Content-Length is an error; a list of equal values is that value; anything else invalid).
private func referenceDeclaredLength(contentLength: String?, transferEncoding: String?) -> Int?? {
    guard let contentLength else { return .some(nil) }
    if transferEncoding != nil { return nil }
    let members = Array(contentLength.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
    let values = members.map { number(trimmed(String(decoding: $0, as: UTF8.self)), digits: 18, maximum: .max) }
    guard let first = values.first, let value = first, values.allSatisfy({ $0 == value }) else { return nil }
    return .some(Int(value))
}

private func referenceAnswer(status: Int, headers: [String: String], requested: Range<Int64>) -> OriginAnswer? {
    let maximum = ResourceMetadata.maxLength
    var length: Int64?
    if let text = headers["content-length"] {
        guard headers["transfer-encoding"] == nil, let value = number(trimmed(text), digits: 19, maximum: maximum) else { return nil }
        length = value
    }
    // `bytes first-last/complete`, `bytes first-last/*` or `bytes */complete` (RFC 9110 §14.4).
    var range: Range<Int64>?
    var complete: Int64?
    var rangeReadable = false
    if let text = headers["content-range"] {
        let value = trimmed(text)
        if value.count > 6, String(decoding: value.prefix(6), as: UTF8.self).lowercased() == "bytes " {
            let parts = value.dropFirst(6).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            if parts.count == 2 {
                let total = parts[1].elementsEqual([UInt8(ascii: "*")]) ? nil : number(parts[1], digits: 19, maximum: maximum)
                let totalOK = parts[1].elementsEqual([UInt8(ascii: "*")]) || total != nil
                if parts[0].elementsEqual([UInt8(ascii: "*")]) {
                    rangeReadable = totalOK && total != nil
                    complete = total
                } else {
                    let pair = parts[0].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
                    if totalOK, pair.count == 2, let first = number(pair[0], digits: 19, maximum: maximum),
                       let last = number(pair[1], digits: 19, maximum: maximum - 1), first <= last {
                        range = first..<(last + 1)
                        complete = total
                        rangeReadable = true
                    }
                }
            }
        }
    }
    let info = VideoContentInfo()
    switch status {
    case 206:
        guard let range, range.lowerBound == requested.lowerBound, range.upperBound <= requested.upperBound,
              complete.map({ range.upperBound <= $0 }) ?? true, length.map({ $0 == range.count }) ?? true else { return nil }
        var partial = info
        partial.length = complete
        return .partial(range: range, info: partial)
    case 200:
        var whole = info
        whole.length = length
        return .whole(info: whole)
    case 416:
        return .unsatisfiable(length: rangeReadable ? complete : nil)
    default:
        return nil
    }
}
