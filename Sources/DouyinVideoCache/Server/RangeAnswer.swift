import Foundation

/// How the proxy answers a request's `Range` field for a resource of known length: the rules
/// of `douyinkit video serve` (DESIGN.md) over RFC 9110 §14, as a pure value.
package enum RangeAnswer: Sendable, Hashable {
    /// 200 with the whole body: no Range, a Range this server does not understand (other
    /// units, bad syntax: RFC 9110 §14.2 says ignore it), or several ranges.
    case whole
    /// 206 with exactly these bytes and `Content-Range: bytes first-last/length`.
    case partial(Range<Int64>)
    /// 416 with `Content-Range: bytes */length`: the range starts at or past the end (or is a
    /// suffix of zero bytes).
    case unsatisfiable

    /// The answer to the `Range` field `header` (`nil`: none) for `length` bytes.
    package init(header: String?, length: Int64) {
        guard let header, let (firstDigits, lastDigits) = Self.spec(of: header) else {
            self = .whole
            return
        }
        // A first position too large for Int64 is past any length (416), not absent.
        let first = firstDigits.isEmpty ? nil : Int64(firstDigits) ?? .max
        switch (first, Int64(lastDigits)) {
        case (nil, nil):
            self = .whole
        case (nil, let count?):
            // `-n`: the last n bytes; n past the length is the whole body, as a 206.
            self = count == 0 || length == 0 ? .unsatisfiable : .partial(max(0, length - count)..<length)
        case (let first?, nil):
            // `a-`, or a last position too large for Int64: to the end.
            self = first >= length ? .unsatisfiable : .partial(first..<length)
        case (let first?, let last?):
            if last < first {
                self = .whole
            } else if first >= length {
                self = .unsatisfiable
            } else {
                self = .partial(first..<(min(last, length - 1) + 1))
            }
        }
    }

    /// The digits either side of the dash of a field holding one `bytes=` range (either may be
    /// empty); `nil` for anything the answer ignores: another unit, several ranges, bad syntax.
    /// On the field's characters, not through Foundation: the proxy parses one per answer.
    private static func spec(of header: String) -> (first: Substring, last: Substring)? {
        let trimmed = Substring(header).trimmingWhitespace()
        guard trimmed.prefix(6).lowercased() == "bytes=" else { return nil }
        let specs = trimmed.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return nil }
        let sides = specs[0].trimmingWhitespace().split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2, sides.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }) else { return nil }
        return (sides[0], sides[1])
    }
}

extension RangeAnswer {
    /// The bytes a `Range` field (`nil`: none) asks for when they can be named before the
    /// resource's length is known: `0..<2⁵⁰` without one, `a..<b+1` for `bytes=a-b`,
    /// `a..<2⁵⁰` for `bytes=a-` (the cache clips a read to the length; 2⁵⁰ leaves room for
    /// arithmetic past the end); `nil` for a suffix, several ranges or anything the answer
    /// would ignore. The proxy starts fetching these at once, so a cold request costs the
    /// origin one round trip, not a probe first.
    package static func bytesNamed(by header: String?) -> Range<Int64>? {
        let toTheEnd: Int64 = 1 << 50
        guard let header else { return 0..<toTheEnd }
        // A suffix is told by its empty first position, after the trimming the answer does:
        // `bytes= -500` is a suffix too, whose bytes need the length.
        guard let (first, _) = spec(of: header), !first.isEmpty, case .partial(let range) = RangeAnswer(header: header, length: toTheEnd) else { return nil }
        return range
    }
}
